import { prisma } from '@/lib/server/db';
import { SignInForm } from './signin-form';

export const dynamic = 'force-dynamic';

export default async function SignInPage({ searchParams }: { searchParams: Promise<{ next?: string }> }) {
  const { next } = await searchParams;
  // The first start's admin still holds its one-time password: say where it is.
  const firstRun = (await prisma().user.count({ where: { mustChangePassword: true } })) > 0;
  return (
    <>
      <h1>Sign in</h1>
      <p className="subtitle">
        Viewers read; operators also start, stop and restart; admins also create, edit, delete and reset checkpoints.
      </p>
      {firstRun ? (
        <div className="panel first-run" role="note" aria-label="First sign-in">
          <strong>First sign-in?</strong> Sign in as <code>admin</code> with the one-time password printed in the terminal where{' '}
          <code>npm start</code> runs, beside the dashboard URL. You then choose your own password. Restarting <code>npm start</code> prints a
          new one-time password until you have.
        </div>
      ) : null}
      <SignInForm next={next} />
      <p className="small muted-text">
        Automation can skip this page: send <code>Authorization: Bearer &lt;api token&gt;</code> to the API (<a href="/api/openapi.json">OpenAPI</a>).
      </p>
    </>
  );
}
