/**
 * The OpenAPI document matches the handlers: every exported method of every route file under
 * app/api is documented, and every documented operation has its route file and method.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openApiDocument, OPERATIONS } from './openapi';

const API_DIR = path.resolve(import.meta.dirname, '../../../app/api');
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

async function routeFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    // The catch-all (app/api/[...path]) answers unknown paths with a JSON 404: no operation of its own.
    if (e.isDirectory() && e.name.startsWith('[...')) continue;
    if (e.isDirectory()) out.push(...(await routeFiles(p)));
    else if (e.name === 'route.ts') out.push(p);
  }
  return out;
}

/** `app/api/jobs/[id]/start/route.ts` → `/api/jobs/{id}/start`. */
export function openApiPathOf(file: string): string {
  const rel = path.relative(path.resolve(API_DIR, '..'), path.dirname(file)).split(path.sep);
  return '/' + rel.map((s) => s.replace(/^\[(\w+)\]$/, '{$1}')).join('/');
}

describe('OpenAPI document', () => {
  it('documents exactly the methods the route files export', async () => {
    const fromRoutes = new Set<string>();
    for (const f of await routeFiles(API_DIR)) {
      const mod = (await import(f)) as Record<string, unknown>;
      for (const m of METHODS) if (typeof mod[m] === 'function') fromRoutes.add(`${m} ${openApiPathOf(f)}`);
    }
    const doc = openApiDocument();
    const fromDoc = new Set<string>();
    for (const [p, ops] of Object.entries(doc.paths)) for (const m of Object.keys(ops)) fromDoc.add(`${m.toUpperCase()} ${p}`);
    expect(fromRoutes.size).toBeGreaterThan(20);
    expect([...fromDoc].filter((x) => !fromRoutes.has(x))).toEqual([]);
    expect([...fromRoutes].filter((x) => !fromDoc.has(x))).toEqual([]);
  });

  it('is served at /api/openapi.json, and every operation declares its path parameters and error shape', async () => {
    const { GET } = await import('@/app/api/openapi.json/route');
    const res = GET();
    expect(res.status).toBe(200);
    const doc = await res.json();
    expect(doc.openapi).toBe('3.1.0');
    for (const op of OPERATIONS) {
      const o = doc.paths[op.path][op.method];
      const declared = o.parameters.filter((p: { in: string }) => p.in === 'path').map((p: { name: string }) => p.name);
      expect(declared).toEqual([...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]));
      if (op.role !== 'public') {
        expect(Object.keys(o.responses)).toEqual(expect.arrayContaining(['401', '403']));
        expect(o.responses['403'].content['application/json'].schema.$ref).toBe('#/components/schemas/Error');
      }
      if (op.body) expect(o.requestBody.content['application/json'].schema).toBeTypeOf('object');
    }
  });
});
