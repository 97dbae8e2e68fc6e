'use client';

export default function JobError({ error, reset }: { error: Error; reset: () => void }) {
  return (
    <div className="error-box" role="alert">
      <p>Could not load this job: {error.message}</p>
      <p>
        Check <a href="/api/health">/api/health</a>, then <button onClick={reset}>try again</button> or go back to the <a href="/">jobs list</a>.
      </p>
    </div>
  );
}
