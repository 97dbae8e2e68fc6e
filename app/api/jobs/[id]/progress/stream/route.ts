import { apiRoute } from '@/lib/server/http/api-handler';
import { progressEventStream } from '@/lib/server/progress-stream';

export const dynamic = 'force-dynamic';

/** Server-sent events: `event: progress` with each newly committed batch, a comment heartbeat every 15 s. */
export const GET = apiRoute('viewer', 'follow job progress', async ({ req, db, params }) => progressEventStream(db, params.id, req.signal));
