export default function JobNotFound() {
  return (
    <div className="panel empty">
      <h1>No such job</h1>
      <p>
        It may have been deleted. See the <a href="/">jobs list</a>.
      </p>
    </div>
  );
}
