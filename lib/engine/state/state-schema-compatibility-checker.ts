/**
 * StateSchemaCompatibilityChecker: refuses a restart whose stateful plan no longer matches the
 * state in the checkpoint (reference §5).
 *
 * Protocol: at start, before batch 0 of this run, every stateful operator's descriptor (its
 * name, the parts that give its state a meaning, its key and value schemas) is compared with
 * `state/<opId>/_metadata/schema`. The first run writes the file (create-if-absent); a later
 * run with the same descriptor passes; any difference in a part or a schema throws
 * IncompatibleQueryChangeError naming what changed, old and new, and the two ways out. Operators
 * that exist in the checkpoint but not in the new plan (or the reverse, once state exists) are
 * refused too: their state would be silently dropped, or silently start empty.
 *
 * What goes in `parts` is the compatibility rule: grouping keys, aggregate list, window, dedup
 * keys, join keys/type, and the sources. What stays out is what Spark allows to change: filters
 * before the stateful operator, projections after it, sink options.
 */
import { createHash } from 'node:crypto';
import type { CheckpointFileManager } from '../checkpoint/checkpoint-file-manager';
import { FileAlreadyExistsError } from '../checkpoint/checkpoint-file-manager';
import { CorruptCheckpointError, IncompatibleQueryChangeError } from '../errors';
import { OffsetSeqLog, statefulOperatorsOf } from '../checkpoint/offset-seq-log';
import { parseStateFileName } from './state-file-format';
import { DEFAULT_STATE_STORE_PROVIDER, type StateStoreProviderName } from '../spec/job-spec';
import type { Schema } from '../types';
import { schemasEqualIgnoreNameAndCompatibleNullability, typeText } from '../query/data-types';

export interface StatefulOperatorDescriptor {
  operatorId: number;
  /** e.g. `aggregate`, `deduplicate`, `deduplicateWithinWatermark`. */
  operatorName: string;
  /** Named parts whose change invalidates the state, e.g. `{ "grouping keys": "region" }`. */
  parts: Record<string, string>;
  keySchema: Schema;
  valueSchema: Schema;
}

interface StoredSchema extends StatefulOperatorDescriptor {
  formatVersion: 1;
  /** The state store provider that writes this operator's state; absent in files from before there was a choice: `hdfs`. */
  stateStoreProvider?: StateStoreProviderName;
  /**
   * Set on a file whose key and value schemas are compared as Spark compares them (every type in
   * full: an INT is not a BIGINT, a DECIMAL's precision, nullability). A file without it was
   * written by an older Weir, which compared each field's kind alone (a BIGINT Kafka partition it
   * keyed state by is an INT now, over the same numbers): it is compared so still.
   */
  sparkTypes?: true;
}

export const schemaFilePath = (operatorId: number) => `state/${operatorId}/_metadata/schema`;

/**
 * Stateful operators whose `_metadata/schema` is missing although the checkpoint shows they kept
 * state (their `state/<op>/<partition>/` holds state files, or offsets/N's conf records them:
 * `recorded`, see STATEFUL_OPERATORS_CONF), or is not a schema file. Without it a restart cannot
 * check the new plan against the state, and writing a fresh one would bless whatever the new
 * plan is.
 */
export async function stateSchemaProblems(fm: CheckpointFileManager, recorded: number[]): Promise<{ path: string; missing: boolean; reason: string }[]> {
  const withFiles = new Set<number>();
  for (const name of await fm.list('state')) {
    if (!/^\d+$/.test(name)) continue;
    for (const part of await fm.list(`state/${name}`)) {
      if (!/^\d+$/.test(part)) continue;
      if ((await fm.list(`state/${name}/${part}`)).some((f) => parseStateFileName(f) !== null)) {
        withFiles.add(Number(name));
        break;
      }
    }
  }
  const ops = new Set([...recorded, ...withFiles]);
  const checker = new StateSchemaCompatibilityChecker(fm);
  const out: { path: string; missing: boolean; reason: string }[] = [];
  for (const operatorId of [...ops].sort((a, b) => a - b)) {
    const path = schemaFilePath(operatorId);
    try {
      if (await checker.stored(operatorId)) continue;
    } catch (e) {
      if (!(e instanceof CorruptCheckpointError)) throw e;
      out.push({ path, missing: false, reason: (e.details as { reason: string }).reason });
      continue;
    }
    out.push({
      path,
      missing: true,
      reason: !recorded.includes(operatorId)
        ? `state/${operatorId}/ holds state files but not the schema that says which operator wrote them, so the query cannot be checked against them`
        : withFiles.has(operatorId)
          ? `the checkpoint's offsets record stateful operator ${operatorId} and state/${operatorId}/ holds its state files, but its schema is gone, so the query cannot be checked against them`
          : `the checkpoint's offsets record stateful operator ${operatorId}, but its state is gone (state/${operatorId}/ was deleted); ` +
            'starting without it would restart its state from empty and give wrong answers',
    });
  }
  return out;
}

/** What an older Weir compared a state schema by (see StoredSchema.sparkTypes): the count and kind of its fields. */
const kinds = (s: Schema) => s.map((f) => f.type).join(',');
/** A state schema as the refusal shows it: each field's name and Spark type, NOT NULL where it says so. */
const renderSchema = (s: Schema) => `[${s.map((f) => `${f.name}: ${typeText(f)}${f.nullable === false ? ' NOT NULL' : ''}`).join(', ')}]`;

export interface CompatibilityResult {
  /** Operators whose schema file this run wrote (a first start). */
  created: number[];
  /** Operators whose stored descriptor matched. */
  verified: number[];
}

export class StateSchemaCompatibilityChecker {
  constructor(private readonly fm: CheckpointFileManager) {}

  /** The stored descriptor, null when absent; CORRUPT_CHECKPOINT when it is not a schema file. */
  async stored(operatorId: number): Promise<StoredSchema | null> {
    const path = schemaFilePath(operatorId);
    if (!(await this.fm.exists(path))) return null;
    const text = (await this.fm.read(path)).toString('utf8');
    try {
      const parsed = JSON.parse(text) as StoredSchema;
      if (parsed.formatVersion !== 1 || typeof parsed.parts !== 'object') throw new Error('unknown format');
      return parsed;
    } catch (e) {
      throw new CorruptCheckpointError(path, `not a state schema file (${(e as Error).message})`);
    }
  }

  /** Operator ids that have any state directory in the checkpoint. */
  private async operatorsInCheckpoint(): Promise<number[]> {
    return (await this.fm.list('state')).filter((n) => /^\d+$/.test(n)).map(Number).sort((a, b) => a - b);
  }

  /**
   * Checks every stateful operator of the new plan against the checkpoint and records the ones
   * seen for the first time. `hasCommittedBatches` says whether the checkpoint already ran
   * batches: then a stateful operator without stored state is a change too. `knowsStatefulOperators`
   * is false for a checkpoint whose offsets predate STATEFUL_OPERATORS_CONF: then such an operator
   * may as well be one whose state was deleted, and the refusal says so.
   */
  async check(
    operators: StatefulOperatorDescriptor[],
    checkpointDescription: string,
    hasCommittedBatches: boolean,
    knowsStatefulOperators = true,
    /** Check only (an edit is being saved, not a run started): write no schema file. */
    dryRun = false,
    provider: StateStoreProviderName = DEFAULT_STATE_STORE_PROVIDER,
  ): Promise<CompatibilityResult> {
    const refuse = (what: string, details: Record<string, unknown>, errorClass?: string): never => {
      const e = new IncompatibleQueryChangeError(
        `Cannot restart the query on checkpoint ${checkpointDescription}: ${what}. The state in this checkpoint was built by ` +
          'the previous query and would give wrong answers with the new one. Either revert the change, or start the query on a ' +
          'new checkpoint location (it then starts with empty state and reprocesses from the source start).',
        details,
      );
      if (errorClass) e.errorClass = errorClass;
      throw e;
    };
    const wanted = new Map(operators.map((o) => [o.operatorId, o]));
    for (const id of await this.operatorsInCheckpoint()) {
      const old = await this.stored(id);
      if (!wanted.has(id) && old) {
        refuse(`the checkpoint holds state for stateful operator ${id} (${old.operatorName}: ${describeParts(old.parts)}), which the new query no longer has`,
          { operatorId: id, change: 'operator removed', previous: old.operatorName });
      }
    }
    const result: CompatibilityResult = { created: [], verified: [] };
    for (const op of operators) {
      const old = await this.stored(op.operatorId);
      if (!old) {
        if (hasCommittedBatches) {
          refuse(`stateful operator ${op.operatorId} (${op.operatorName}: ${describeParts(op.parts)}) is new; the query ran before without it` +
            (knowsStatefulOperators ? '' : ` (or, if the query did not change, this checkpoint's state/${op.operatorId} was deleted: then restore it from a backup of the checkpoint)`),
            { operatorId: op.operatorId, change: 'operator added', operatorName: op.operatorName });
        }
        if (dryRun) {
          result.created.push(op.operatorId);
          continue;
        }
        const record: StoredSchema = { formatVersion: 1, ...op, stateStoreProvider: provider, sparkTypes: true };
        try {
          await this.fm.createAtomic(schemaFilePath(op.operatorId), JSON.stringify(record, null, 1));
        } catch (e) {
          if (!(e instanceof FileAlreadyExistsError)) throw e;
          return this.check(operators, checkpointDescription, hasCommittedBatches, knowsStatefulOperators, dryRun, provider); // raced: compare with the winner
        }
        result.created.push(op.operatorId);
        continue;
      }
      const where = `stateful operator ${op.operatorId}`;
      const written = old.stateStoreProvider ?? DEFAULT_STATE_STORE_PROVIDER;
      if (written !== provider) {
        // Not a change of the query: the same state in another store's files. Each provider reads
        // only its own files (the other's would look like a checkpoint with no state).
        throw new IncompatibleQueryChangeError(
          `Cannot restart the query on checkpoint ${checkpointDescription} with stateStore.provider "${provider}": the state of ${where} ` +
            `(${op.operatorName}) was written by the "${written}" state store provider, and a checkpoint keeps its provider for life. ` +
            `Either set stateStore.provider back to "${written}", or convert a copy of the checkpoint ` +
            `(\`weir checkpoint convert-state --to ${provider} <copy>\` on a savepoint or exported copy, restored as a new job), ` +
            'or start the query on a new checkpoint location (it then starts with empty state and reprocesses from the source start).',
          { operatorId: op.operatorId, part: 'state store provider', previous: written, current: provider },
        );
      }
      if (old.operatorName !== op.operatorName) {
        refuse(`${where} was ${old.operatorName} and is now ${op.operatorName}`, { operatorId: op.operatorId, part: 'operator', previous: old.operatorName, current: op.operatorName });
      }
      // What else changed, by Weir's own record of the expressions that give the state its
      // meaning (Spark does not look at them: a changed key of the same type passes there).
      const changedParts = [...new Set([...Object.keys(old.parts), ...Object.keys(op.parts)])]
        .map((part) => ({ part, previous: old.parts[part] ?? '(none)', current: op.parts[part] ?? '(none)' }))
        .filter(({ part, previous, current }) => previous !== current && (part === 'source' || partText(previous) !== partText(current)));
      const describeChange = ({ part, previous, current }: (typeof changedParts)[number]) => `the ${part} of ${where} (${op.operatorName}) changed from ${previous} to ${current}`;
      // Spark's StateSchemaCompatibilityChecker: the new schema against the stored one by
      // DataType.equalsIgnoreNameAndCompatibleNullability, so a field's name may change (a
      // generated column name an older Weir gave differently), its type and the field count may
      // not, and a field may become non-nullable but not nullable. Key first, then value; this
      // refusal, with Spark's class, before Weir's own below.
      for (const [which, before, after] of [['key', old.keySchema, op.keySchema], ['value', old.valueSchema, op.valueSchema]] as const) {
        if (!(old.sparkTypes ? schemasEqualIgnoreNameAndCompatibleNullability(after, before) : kinds(after) === kinds(before))) {
          refuse(`Provided ${which} schema does not match existing state ${which} schema of ${where} (${op.operatorName}). ` +
            `Please check number and type of fields. Existing ${which}_schema=${renderSchema(before)} and new ${which}_schema=${renderSchema(after)}` +
            changedParts.map((c) => `; ${describeChange(c)}`).join(''),
            { operatorId: op.operatorId, part: `${which} schema`, previous: renderSchema(before), current: renderSchema(after) },
            // Spark's classes for the same refusal.
            which === 'key' ? 'STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE' : 'STATE_STORE_VALUE_SCHEMA_NOT_COMPATIBLE');
        }
      }
      for (const c of changedParts) refuse(describeChange(c), { operatorId: op.operatorId, ...c });
      result.verified.push(op.operatorId);
    }
    return result;
  }
}

/**
 * An expression part's text with what older Weirs wrote differently for the same expression made
 * the same, so that a checkpoint they wrote restarts: a unary `+` (`(+ x)` now, dropped before:
 * `x`; a `+` that changes the type changes the state schema, which is checked above) and a
 * TIMESTAMP literal (`TIMESTAMP '2024-01-02 03:04:05'` or `TIMESTAMP_NTZ '…'` now, ISO text
 * `TIMESTAMP '2024-01-02T03:04:05.000Z'` for both before; with the session zone UTC they are
 * the same instant).
 */
function partText(text: string): string {
  let out = '';
  const closes: number[] = []; // depths at which a `(+ ` was dropped: its `)` goes too
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'") {
      const end = endOfQuoted(text, i);
      out += text.slice(i, end);
      i = end - 1;
    } else if (c === '(' && text.startsWith('(+ ', i)) {
      depth++;
      closes.push(depth);
      i += 2;
    } else if (c === '(') {
      depth++;
      out += c;
    } else if (c === ')') {
      if (closes.at(-1) === depth) closes.pop();
      else out += c;
      depth--;
    } else {
      out += c;
    }
  }
  return out.replace(/TIMESTAMP(?:_NTZ)? '(-?\d{4,}-\d\d-\d\d)[T ](\d\d:\d\d:\d\d)(?:\.(\d+))?Z?'/g, (_m, date: string, time: string, fraction?: string) => {
    const f = (fraction ?? '').replace(/0+$/, '');
    return `TIMESTAMP '${date} ${time}${f ? `.${f}` : ''}'`;
  });
}

/** The index just past the SQL string literal that starts at `start` (a doubled quote is a quote). */
function endOfQuoted(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    if (text[i] === "'") {
      if (text[i + 1] === "'") i += 2;
      else return i + 1;
    } else i++;
  }
  return text.length;
}

function describeParts(parts: Record<string, string>): string {
  return Object.entries(parts).map(([k, v]) => `${k} ${v}`).join('; ');
}

/** Options that only pace reading (Spark allows changing rate limits across restarts). */
const RATE_LIMIT_OPTIONS = new Set(['maxFilesPerTrigger', 'maxBytesPerTrigger', 'maxOffsetsPerTrigger', 'maxRecordsPerTrigger', 'rowsPerSecond', 'maxSecondsPerTrigger', 'batchSize', 'pollIntervalMs']);
/** Options that name what is read; shown in clear so the refusal can say what changed. */
const IDENTITY_OPTIONS = ['path', 'format', 'stream', 'table', 'topic', 'subject', 'consumer', 'key'];

/**
 * The source as the state depends on it: its type, the options that name what it reads in
 * clear, and a hash of every other option except rate limits (connection strings can hold
 * secrets, and the schema file is not the place for them).
 */
function sourceFingerprint(source: { type: string; options: Record<string, unknown> }): string {
  const rest: Record<string, unknown> = {};
  const shown: string[] = [];
  for (const k of Object.keys(source.options).sort()) {
    if (RATE_LIMIT_OPTIONS.has(k)) continue;
    if (IDENTITY_OPTIONS.includes(k)) shown.push(`${k}=${JSON.stringify(source.options[k])}`);
    else rest[k] = source.options[k];
  }
  const hash = createHash('sha256').update(JSON.stringify(rest)).digest('hex').slice(0, 12);
  return `${source.type}(${[...shown, `options#${hash}`].join(', ')})`;
}

/** The start-time check MicroBatchExecution runs (through QueryRuntime) before batch 0 of a run. */
export async function checkStateCompatibility(
  fm: CheckpointFileManager,
  operators: StatefulOperatorDescriptor[],
  source: { type: string; options: Record<string, unknown> },
  opts: { dryRun?: boolean; provider?: StateStoreProviderName } = {},
): Promise<CompatibilityResult> {
  const src = sourceFingerprint(source);
  const withSource = operators.map((o) => ({ ...o, parts: { ...o.parts, source: src } }));
  const hasCommittedBatches = (await fm.list('commits')).some((n) => /^\d+$/.test(n));
  const latest = hasCommittedBatches ? await new OffsetSeqLog(fm).getLatest() : undefined;
  const knows = latest === undefined || statefulOperatorsOf(latest.value.metadata) !== undefined;
  return new StateSchemaCompatibilityChecker(fm).check(withSource, fm.description, hasCommittedBatches, knows, opts.dryRun ?? false, opts.provider);
}
