import { JobEditor } from '@/components/job-editor';

export const metadata = { title: 'New job · Weir' };

export default function NewJobPage() {
  return (
    <>
      <p className="small">
        <a href="/">Jobs</a> /
      </p>
      <h1>New job</h1>
      <p className="subtitle">Write the query, pick a source, a sink and an output mode; the editor checks everything as you type.</p>
      <JobEditor mode="new" />
    </>
  );
}
