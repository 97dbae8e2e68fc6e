export default function JobNotFound() {
  return (
    <div className="panel empty">
      <h2>No such job</h2>
      <p>
        It may have been deleted. See the <a href="/">jobs list</a>.
      </p>
    </div>
  );
}
