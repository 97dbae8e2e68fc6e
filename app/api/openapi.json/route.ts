import { openApiDocument } from '@/lib/server/http/openapi';

export const dynamic = 'force-static';

export function GET() {
  return Response.json(openApiDocument());
}
