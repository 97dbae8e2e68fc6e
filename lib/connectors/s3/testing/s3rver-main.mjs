// s3rver (an S3 API server on a local directory) as a process of its own, for tests:
//
//   node s3rver-main.mjs --directory DIR [--port 0]
//
// prints one line `{"ready":true,"port":N}` on stdout once it listens on 127.0.0.1, and exits when
// its stdin closes (the test process that spawned it ended, however it ended) or on SIGTERM.
// Spawned by ./s3rver.ts: s3rver's own failures stay in this process instead of reaching the
// test runner, and an unexpected exit is reported by the parent as such.
//
// One change to s3rver 3.7.1, for a race in its filesystem store: `deleteObject` removes the
// directories it leaves empty, and `putObject` does `mkdirp(dir)` and only later opens the file
// in it, with no error listener on that write stream. A DELETE of the last object in a directory
// racing with a PUT into the same directory (concurrent create-if-absent writers putting and
// deleting claims under `.claims/<path>/`) removes the directory between the two: the open fails
// with ENOENT on a write stream that has no error listener: an uncaught exception, outside any
// request handler, that would end this process (reproduced: 4 in 60 rounds of 8 concurrent
// createAtomic calls). Here `deleteObject` deletes the object's files and leaves the directories. S3 has no directories: listings are built from object keys only,
// so an empty directory left on disk changes no response.
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';

const require = createRequire(import.meta.url);
const S3rver = require('s3rver');
const FilesystemStore = require('s3rver/lib/stores/filesystem.js');
const fs = require('node:fs/promises');

FilesystemStore.prototype.deleteObject = async function deleteObject(bucket, key) {
  await Promise.all(
    ['object', 'object.md5', 'metadata.json'].map((resource) =>
      fs.unlink(this.getResourcePath(bucket, key, resource)).catch((err) => {
        if (err.code !== 'ENOENT') throw err;
      }),
    ),
  );
};

// A second change, for a bug in its listing: with a delimiter, `listObjects` prunes every
// directory deeper than one level below the prefix before looking at its objects, so a key two
// levels down (`state/0/0/1.delta` under `cp/`) yields no common prefix at all, and a checkpoint's
// root lists `offsets` but not `state` or `sources`. S3 groups every key under the prefix. Here the
// store lists without the delimiter and groups the keys itself, as S3 does.
const listObjects = FilesystemStore.prototype.listObjects;
FilesystemStore.prototype.listObjects = async function listObjectsGrouped(bucket, options) {
  const { delimiter = '', prefix = '', maxKeys = Infinity } = options;
  if (!delimiter) return listObjects.call(this, bucket, options);
  const all = await listObjects.call(this, bucket, { ...options, delimiter: '', maxKeys: Infinity });
  const commonPrefixes = new Set();
  const objects = [];
  for (const o of all.objects) {
    const i = o.key.indexOf(delimiter, prefix.length);
    if (i === -1) objects.push(o);
    else commonPrefixes.add(o.key.slice(0, i + delimiter.length));
  }
  return { objects: objects.slice(0, maxKeys), commonPrefixes: [...commonPrefixes].sort(), isTruncated: objects.length > maxKeys };
};

const { values } = parseArgs({ options: { directory: { type: 'string' }, port: { type: 'string', default: '0' } } });
if (!values.directory) {
  process.stderr.write('usage: s3rver-main.mjs --directory DIR [--port N]\n');
  process.exit(2);
}

const server = new S3rver({ port: Number(values.port), address: '127.0.0.1', silent: true, directory: values.directory });
const { port } = await server.run();
const stop = () => server.close().finally(() => process.exit(0));
process.stdin.on('end', stop);
process.stdin.on('error', stop);
process.stdin.resume();
process.on('SIGTERM', stop);
process.stdout.write(`${JSON.stringify({ ready: true, port })}\n`);
