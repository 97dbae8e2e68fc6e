import { SignInForm } from './signin-form';

export const dynamic = 'force-dynamic';

export default async function SignInPage({ searchParams }: { searchParams: Promise<{ next?: string }> }) {
  const { next } = await searchParams;
  return (
    <>
      <h1>Sign in</h1>
      <p className="subtitle">
        Viewers read; operators also start, stop and restart; admins also create, edit, delete and reset checkpoints.
      </p>
      <SignInForm next={next} />
      <p className="small muted-text">
        Automation can skip this page: send <code>Authorization: Bearer &lt;api token&gt;</code> to the API (<a href="/api/openapi.json">OpenAPI</a>).
      </p>
    </>
  );
}
