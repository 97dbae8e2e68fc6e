/**
 * Any address the dashboard does not know, in the dashboard's own frame (navigation, theme), one
 * panel high rather than Next's full-window default, with the way back to the jobs list.
 */
export default function NotFound() {
  return (
    <div className="panel empty" data-testid="not-found">
      <h1>Page not found</h1>
      <p>Nothing lives at this address: the link may be old, or mistyped.</p>
      <p>
        <a className="button primary" href="/">
          Back to the jobs list
        </a>
      </p>
    </div>
  );
}
