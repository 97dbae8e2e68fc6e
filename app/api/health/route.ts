import { env } from '@/lib/env';
import { prisma } from '@/lib/server/db';
import { healthReport } from '@/lib/server/health';

export const dynamic = 'force-dynamic';

export async function GET() {
  const report = await healthReport(prisma(), env());
  return Response.json(report, { status: report.database.ok ? 200 : 503 });
}
