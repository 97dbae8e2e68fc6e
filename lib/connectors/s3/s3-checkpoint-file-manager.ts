/**
 * CheckpointFileManager on the S3 API (`s3://bucket/prefix`), for checkpoints that outlive the
 * machine. Any S3-compatible store with strong read-after-write and list-after-write
 * consistency (AWS S3 since December 2020, MinIO, s3rver) works.
 *
 * Location: `s3://bucket/prefix?endpoint=http://host:port&region=us-east-1&forcePathStyle=true
 * &accessKeyId=…&secretAccessKey=…&conditionalWrites=claims|native`. The query string is
 * secret-bearing and never appears in `description`. Without keys in the location, the AWS SDK
 * resolves credentials its usual way (environment, profile, instance role): Weir's own code reads
 * no environment.
 *
 * Whole-file visibility: a PUT is atomic on S3 (readers see the old object or the new one).
 *
 * Create-if-absent (`overwrite: false`), the primitive that exposes a second runner:
 * - `native`: PUT with `If-None-Match: *`; the store answers 412 if the key exists. AWS S3
 *   (since August 2024) and MinIO honour it. s3rver 3.7 does NOT: it overwrites silently (checked
 *   on this machine), so native mode must not be used against stores that ignore the header.
 * - `claims` (the default, correct on any strongly consistent store): a writer
 *     1. HEADs the target: present → FileAlreadyExistsError;
 *     2. PUTs a claim `.claims/<path>/<token>` (dot-prefixed names are hidden from `list`);
 *     3. LISTs `.claims/<path>/`: if any other live claim is there, it deletes its own claim and
 *        retries after a backoff (or fails with FileAlreadyExistsError if the target appeared);
 *     4. alone: HEADs the target again (a winner that finished before our claim), PUTs the
 *        target (also with If-None-Match, so a native-capable store double-checks), deletes
 *        its claim.
 *   Two writers cannot both be alone: each PUT completes before its own LIST, so whichever
 *   LISTs second sees the other's claim. Both may see each other and back off; the jitter
 *   (derived from the writer's token) separates them on retry. A claim left by a writer that
 *   died mid-protocol is ignored once it is `claimTtlMs` older than ours (server timestamps).
 *   Cost: about five requests per create, paid only by log files (a few per batch).
 */
import { randomUUID } from 'node:crypto';
// Types only: the SDK (about 300 ms to load) is imported on first use, so every `weir` command
// and every job without an s3:// checkpoint does not pay for it.
import type { S3Client, ListObjectsV2CommandOutput, GetObjectCommandOutput, HeadObjectCommandOutput } from '@aws-sdk/client-s3';

type S3Module = typeof import('@aws-sdk/client-s3');
let sdk: Promise<S3Module> | null = null;
const loadSdk = () => (sdk ??= import('@aws-sdk/client-s3'));
import { type CheckpointFileManager, FileAlreadyExistsError, FileNotFoundError, guardedAgents, outboundPolicy, registerCheckpointScheme, ValidationError } from '../../engine';

export interface S3CheckpointOptions {
  bucket: string;
  /** Key prefix of the checkpoint root, without leading or trailing '/'. */
  prefix: string;
  endpoint?: string;
  region?: string;
  forcePathStyle?: boolean;
  accessKeyId?: string;
  secretAccessKey?: string;
  conditionalWrites?: 'claims' | 'native';
  claimTtlMs?: number;
  maxClaimAttempts?: number;
}

const isNotFound = (e: unknown) => {
  const err = e as { name?: string; $metadata?: { httpStatusCode?: number } };
  return err?.name === 'NotFound' || err?.name === 'NoSuchKey' || err?.$metadata?.httpStatusCode === 404;
};
const isPreconditionFailed = (e: unknown) => {
  const err = e as { name?: string; $metadata?: { httpStatusCode?: number } };
  return err?.name === 'PreconditionFailed' || err?.$metadata?.httpStatusCode === 412;
};

export function parseS3Location(location: string): S3CheckpointOptions {
  const url = new URL(location);
  if (url.protocol !== 's3:' || !url.hostname) throw new ValidationError('checkpointLocation must look like s3://bucket/prefix.', { path: 'checkpointLocation' });
  const q = url.searchParams;
  const mode = q.get('conditionalWrites') ?? 'claims';
  if (mode !== 'claims' && mode !== 'native') throw new ValidationError(`checkpointLocation conditionalWrites must be "claims" or "native", not "${mode}".`, { path: 'checkpointLocation' });
  return {
    bucket: url.hostname,
    prefix: decodeURIComponent(url.pathname).replace(/^\/+|\/+$/g, ''),
    endpoint: q.get('endpoint') ?? undefined,
    region: q.get('region') ?? undefined,
    forcePathStyle: q.has('forcePathStyle') ? q.get('forcePathStyle') !== 'false' : q.has('endpoint'),
    accessKeyId: q.get('accessKeyId') ?? undefined,
    secretAccessKey: q.get('secretAccessKey') ?? undefined,
    conditionalWrites: mode,
  };
}

export class S3CheckpointFileManager implements CheckpointFileManager {
  readonly description: string;
  readonly outlivesMachine: boolean;
  private s3: S3Client | null;
  private pending: Promise<{ s3: S3Client; m: S3Module }> | null = null;
  private readonly root: string;

  constructor(private readonly opts: S3CheckpointOptions, client?: S3Client) {
    this.root = opts.prefix ? `${opts.prefix}/` : '';
    this.description = `s3://${opts.bucket}/${opts.prefix}`;
    // An "object store" listening on this machine's loopback keeps its objects on this
    // machine's disk: it does not outlive the machine, and the contract audit must say so.
    const host = opts.endpoint ? new URL(opts.endpoint).hostname : '';
    this.outlivesMachine = !/^(localhost|127\.\d+\.\d+\.\d+|\[::1\]|::1)$/.test(host);
    this.s3 = client ?? null;
  }

  /** The S3 client and SDK module, created on first use (exposed for tests that add middleware). */
  async client(): Promise<{ s3: S3Client; m: S3Module }> {
    this.pending ??= loadSdk().then((m) => {
      this.s3 ??= new m.S3Client({
        endpoint: this.opts.endpoint,
        region: this.opts.region ?? 'us-east-1',
        forcePathStyle: this.opts.forcePathStyle,
        credentials: this.opts.accessKeyId && this.opts.secretAccessKey ? { accessKeyId: this.opts.accessKeyId, secretAccessKey: this.opts.secretAccessKey } : undefined,
        // The endpoint, and the address each connection reaches, obey the outbound policy.
        requestHandler: guardedAgents(outboundPolicy(), 's3'),
      });
      return { s3: this.s3, m };
    });
    return this.pending;
  }

  private async send<O = unknown>(make: (m: S3Module) => unknown): Promise<O> {
    const { s3, m } = await this.client();
    return (await s3.send(make(m) as Parameters<S3Client['send']>[0])) as O;
  }

  private key(p: string): string {
    const rel = p.replace(/^\/+|\/+$/g, '');
    if (rel.split('/').some((s) => s === '..' || s === '.')) throw new Error(`Checkpoint path ${p} escapes the checkpoint root ${this.description}.`);
    return this.root + rel;
  }

  private async put(key: string, body: Uint8Array | string, ifNoneMatch: boolean): Promise<void> {
    await this.send((m) => new m.PutObjectCommand({ Bucket: this.opts.bucket, Key: key, Body: typeof body === 'string' ? Buffer.from(body, 'utf8') : body, IfNoneMatch: ifNoneMatch ? '*' : undefined }));
  }

  private async head(key: string): Promise<boolean> {
    try {
      await this.send((m) => new m.HeadObjectCommand({ Bucket: this.opts.bucket, Key: key }));
      return true;
    } catch (e) {
      if (isNotFound(e)) return false;
      throw e;
    }
  }

  async createAtomic(p: string, data: Uint8Array | string, opts: { overwrite?: boolean } = {}): Promise<void> {
    const key = this.key(p);
    if (opts.overwrite) return this.put(key, data, false);
    try {
      if (this.opts.conditionalWrites === 'native') return await this.put(key, data, true);
      await this.createWithClaim(p, key, data);
    } catch (e) {
      if (isPreconditionFailed(e)) throw new FileAlreadyExistsError(p);
      throw e;
    }
  }

  private async createWithClaim(p: string, key: string, data: Uint8Array | string): Promise<void> {
    const token = randomUUID();
    const claimDir = `${this.root}.claims/${key.slice(this.root.length)}/`;
    const claim = `${claimDir}${token}`;
    const attempts = this.opts.maxClaimAttempts ?? 12;
    const ttl = this.opts.claimTtlMs ?? 30_000;
    // Per-writer jitter taken from the writer's unique token, so contenders spread apart on retry.
    const jitter = parseInt(token.slice(0, 4), 16) % 40;
    for (let attempt = 0; attempt < attempts; attempt++) {
      if (await this.head(key)) throw new FileAlreadyExistsError(p);
      await this.put(claim, '', false);
      try {
        const claims = (await this.listAll(claimDir)).objects;
        const mine = claims.find((c) => c.Key === claim)?.LastModified?.getTime() ?? 0;
        const alone = claims.every((c) => c.Key === claim || (c.LastModified?.getTime() ?? 0) < mine - ttl);
        if (alone) {
          if (await this.head(key)) throw new FileAlreadyExistsError(p);
          await this.put(key, data, true);
          return;
        }
      } finally {
        await this.send((m) => new m.DeleteObjectCommand({ Bucket: this.opts.bucket, Key: claim })).catch(() => undefined);
      }
      await new Promise((r) => setTimeout(r, (attempt + 1) * 15 + jitter * (attempt + 1)));
    }
    if (await this.head(key)) throw new FileAlreadyExistsError(p);
    throw new Error(`Could not create ${this.description}/${p}: ${attempts} attempts met other writers' claims. Another runner is writing this checkpoint; stop it before starting this one.`);
  }

  async read(p: string): Promise<Buffer> {
    try {
      const res = await this.send<GetObjectCommandOutput>((m) => new m.GetObjectCommand({ Bucket: this.opts.bucket, Key: this.key(p) }));
      return Buffer.from(await res.Body!.transformToByteArray());
    } catch (e) {
      if (isNotFound(e)) throw new FileNotFoundError(p);
      throw e;
    }
  }

  async exists(p: string): Promise<boolean> {
    if (await this.head(this.key(p))) return true;
    // A "directory" exists when something lives under it (as on local disk).
    const res = await this.send<ListObjectsV2CommandOutput>((m) => new m.ListObjectsV2Command({ Bucket: this.opts.bucket, Prefix: `${this.key(p)}/`, MaxKeys: 1 }));
    return (res.KeyCount ?? 0) > 0;
  }

  private async listAll(prefix: string, delimiter?: string): Promise<{ objects: NonNullable<ListObjectsV2CommandOutput['Contents']>; dirs: string[] }> {
    const objects: NonNullable<ListObjectsV2CommandOutput['Contents']> = [];
    const dirs: string[] = [];
    let token: string | undefined;
    do {
      const res = await this.send<ListObjectsV2CommandOutput>((m) => new m.ListObjectsV2Command({ Bucket: this.opts.bucket, Prefix: prefix, Delimiter: delimiter, ContinuationToken: token }));
      objects.push(...(res.Contents ?? []));
      dirs.push(...(res.CommonPrefixes ?? []).map((c) => c.Prefix ?? ''));
      token = res.IsTruncated ? res.NextContinuationToken : undefined;
    } while (token);
    return { objects, dirs };
  }

  async list(dir: string): Promise<string[]> {
    const rel = dir.replace(/^\/+|\/+$/g, '');
    const prefix = rel ? `${this.key(rel)}/` : this.root;
    const { objects, dirs } = await this.listAll(prefix, '/');
    const names = [...objects.map((o) => (o.Key ?? '').slice(prefix.length)), ...dirs.map((d) => d.slice(prefix.length).replace(/\/$/, ''))];
    return [...new Set(names)].filter((n) => n && !n.startsWith('.')).sort();
  }

  async delete(p: string): Promise<void> {
    const key = this.key(p);
    // Like `rm -rf`: the object itself and anything under it as a directory.
    const under = await this.listAll(`${key}/`);
    for (const k of [key, ...under.objects.map((o) => o.Key!)]) {
      await this.send((m) => new m.DeleteObjectCommand({ Bucket: this.opts.bucket, Key: k })).catch((e) => {
        if (!isNotFound(e)) throw e;
      });
    }
  }

  async size(p: string): Promise<number> {
    const key = this.key(p);
    try {
      const res = await this.send<HeadObjectCommandOutput>((m) => new m.HeadObjectCommand({ Bucket: this.opts.bucket, Key: key }));
      return res.ContentLength ?? 0;
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
    const { objects } = await this.listAll(`${key}/`);
    return objects.reduce((n, o) => n + (o.Size ?? 0), 0);
  }

  /** Release the HTTP connections (tests; a long-running worker keeps one client). */
  close(): void {
    this.s3?.destroy();
  }
}

registerCheckpointScheme('s3', (location) => new S3CheckpointFileManager(parseS3Location(location)));
