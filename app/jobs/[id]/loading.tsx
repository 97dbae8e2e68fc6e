export default function Loading() {
  return (
    <div aria-busy="true" role="status">
      <h1>Loading job…</h1>
      <div className="grid2">
        <div className="skeleton panel" />
        <div className="skeleton panel" />
      </div>
    </div>
  );
}
