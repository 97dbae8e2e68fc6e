import { env } from '@/lib/env';
import { prisma } from '@/lib/server/db';
import { healthReport } from '@/lib/server/health';
import { errorResponse } from '@/lib/server/http/http-errors';

export const dynamic = 'force-dynamic';

export async function GET() {
  try {
    const report = await healthReport(prisma(), env());
    return Response.json(report, { status: report.database.ok ? 200 : 503 });
  } catch (e) {
    return errorResponse(e);
  }
}
