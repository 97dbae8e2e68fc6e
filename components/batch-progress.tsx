/**
 * One batch's StreamingQueryProgress, read the way Spark's batch details page reads: the figures
 * first (rows in and out, rates, duration, lag), where the trigger's time went by phase, the
 * source's offset range, event time and watermark, each stateful operator's state, then the raw
 * JSON for anything else. Progress rows are stored JSON, so every field is optional here.
 */
import type { StreamingQueryProgress, TaskProgress } from '@/lib/engine/progress';
import type { StateOperatorProgress } from '@/lib/engine/operators/physical-operator';
import { CHART_COLORS, phaseBreakdown } from './chart-series';
import { formatBytes, formatDateTime, formatDuration, formatFixed, formatNumber } from './format';
import { TableScroll } from './table-scroll';

type Progress = Partial<StreamingQueryProgress>;

const offset = (o: unknown) => (o === null || o === undefined ? '–' : JSON.stringify(o));

/**
 * Per-partition offsets and lag from a source's metrics (the Kafka source reports
 * `offsetsByPartition` in Spark's offset JSON and `lagByPartition` keyed `topic-partition`).
 */
export function partitionRows(metrics: Record<string, string> | undefined): { partition: string; offset: number; latest: number; lag: number }[] {
  if (!metrics?.offsetsByPartition || !metrics.lagByPartition) return [];
  try {
    const offsets = JSON.parse(metrics.offsetsByPartition) as Record<string, Record<string, number>>;
    const lag = JSON.parse(metrics.lagByPartition) as Record<string, number>;
    return Object.entries(offsets).flatMap(([topic, ps]) =>
      Object.entries(ps).map(([p, o]) => {
        const l = lag[`${topic}-${p}`] ?? 0;
        return { partition: `${topic}-${p}`, offset: o, latest: o + l, lag: l };
      }),
    );
  } catch {
    return [];
  }
}

/**
 * A stage's skew, as Spark's stage page reads it: its slowest task's duration over the median
 * task's, and its largest task's input rows over the median's (1 = even; a hot key shows as rows).
 */
export function taskSkew(tasks: readonly Pick<TaskProgress, 'durationMs' | 'inputRows'>[]): { duration: number; rows: number } | undefined {
  if (tasks.length < 2) return undefined;
  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  const ratio = (xs: number[]) => {
    const m = median(xs);
    const max = Math.max(...xs);
    return m > 0 ? max / m : max > 0 ? Infinity : 1;
  };
  return { duration: ratio(tasks.map((t) => t.durationMs)), rows: ratio(tasks.map((t) => t.inputRows)) };
}

function Stat({ label, value, note }: { label: string; value: string; note?: string }) {
  return (
    <div className="stat">
      <span className="label">{label}</span>
      <span className="value">{value}</span>
      {note && <span className="small muted-text">{note}</span>}
    </div>
  );
}

/** A stream-stream join's state by side, from its customMetrics (absent for other operators). */
function joinSides(o: Partial<StateOperatorProgress>): { side: 'left' | 'right'; rows: number; removed?: number; memoryBytes?: number }[] {
  const m = o.customMetrics;
  if (m?.leftBufferedRows === undefined || m.rightBufferedRows === undefined) return [];
  return (['left', 'right'] as const).map((side) => ({ side, rows: m[`${side}BufferedRows`], removed: m[`${side}RowsRemoved`], memoryBytes: m[`${side}MemoryUsedBytes`] }));
}

/**
 * `sourceNames`: the job's sources in spec order (the progress's `sources` order), so that each
 * section is headed by the name the SQL reads it by.
 */
export function BatchProgressView({ progress, sourceNames = [] }: { progress: unknown; sourceNames?: readonly string[] }) {
  const p = (progress ?? {}) as Progress;
  const duration = p.batchDuration ?? p.durationMs?.triggerExecution ?? 0;
  const phases = phaseBreakdown(p.durationMs ?? {}, duration);
  const sources = p.sources ?? [];
  const operators = p.stateOperators ?? [];
  const tasks = p.tasks ?? [];
  const stages = [...new Set(tasks.map((t) => t.stageId))];
  // A stage's map tasks (one per source split) and its reduce tasks (one per state partition),
  // each a table of its own, map first as they run first: their skews are not comparable.
  const groups = stages.flatMap((stageId) => (['map', 'reduce'] as const).map((kind) => ({
    stageId,
    kind,
    tasks: tasks.filter((t) => t.stageId === stageId && (t.kind === 'map') === (kind === 'map')).sort((a, b) => a.partitionId - b.partitionId),
  }))).filter((g) => g.tasks.length > 0);
  return (
    <div className="batch-progress">
      {p.reconstructed && (
        <p className="warn-box" role="note">
          This batch committed, but its run died before recording its figures. The row was rebuilt from the checkpoint (offsets/{p.batchId}): the batch id, trigger time, offsets and watermark are exact; the counts and durations are unknown and show 0.
        </p>
      )}
      <div className="grid3">
        <Stat label="Input rows" value={formatNumber(p.numInputRows, 0)} note={p.numBadRecords ? `${p.numBadRecords} bad, ${p.numDeadLetterRecords ?? 0} dead-lettered` : undefined} />
        <Stat label="Output rows" value={formatNumber(p.sink?.numOutputRows, 0)} note={p.sink?.description} />
        <Stat label="Input / processed rows/s" value={`${formatFixed(p.inputRowsPerSecond)} / ${formatFixed(p.processedRowsPerSecond)}`} />
        <Stat label="Duration" value={formatDuration(duration)} note={p.timestamp ? `trigger at ${formatDateTime(p.timestamp, { ms: true })}` : undefined} />
        <Stat label="Commit lag" value={formatNumber(p.commitLag, 0)} note="source units behind its latest offset after this batch" />
        <Stat label="Guarantee" value={p.contract?.guarantee ?? '–'} note={p.contract?.summary} />
      </div>

      <h3>Where the time went</h3>
      <div className="phase-bar" role="img" aria-label={`Batch duration by phase: ${phases.filter((x) => x.ms > 0).map((x) => `${x.phase} ${Math.round(x.ms)} ms`).join(', ') || 'no time recorded'}`}>
        {phases.map((x, i) =>
          x.share > 0 ? <span key={x.phase} style={{ width: `${x.share * 100}%`, background: CHART_COLORS[i % CHART_COLORS.length] }} title={`${x.phase}: ${Math.round(x.ms)} ms`} /> : null,
        )}
      </div>
      <table className="data compact narrow" aria-label="Duration by phase">
        <thead>
          <tr>
            <th>Phase</th>
            <th className="num">ms</th>
            <th className="num">Share</th>
          </tr>
        </thead>
        <tbody>
          {phases.map((x, i) => (
            <tr key={x.phase}>
              <td>
                <span className="swatch" style={{ background: CHART_COLORS[i % CHART_COLORS.length] }} /> {x.phase}
              </td>
              <td className="num">{Math.round(x.ms)}</td>
              <td className="num">{(x.share * 100).toFixed(0)}%</td>
            </tr>
          ))}
        </tbody>
      </table>

      {sources.map((source, i) => (
        <div key={i}>
          <h3>{sources.length > 1 ? `Source ${i + 1}${sourceNames[i] ? `: ${sourceNames[i]}` : ''}` : 'Source'}</h3>
          <dl className="kv">
            <dt>Description</dt>
            <dd>{source.description}</dd>
            <dt>Offsets read</dt>
            <dd>
              <code>{offset(source.startOffset)}</code> → <code>{offset(source.endOffset)}</code>
            </dd>
            <dt>Latest available</dt>
            <dd>
              <code>{offset(source.latestOffset)}</code>
            </dd>
            {sources.length > 1 && (
              <>
                <dt>Input rows</dt>
                <dd>{formatNumber(source.numInputRows, 0)}</dd>
                <dt>Input / processed rows/s</dt>
                <dd>{`${formatFixed(source.inputRowsPerSecond)} / ${formatFixed(source.processedRowsPerSecond)}`}</dd>
                <dt>Commit lag</dt>
                <dd>{formatNumber(source.commitLag, 0)}</dd>
              </>
            )}
            {source.watermark && (
              <>
                <dt title="Its max event time in this run minus its watermark delay">Own watermark</dt>
                <dd>{source.watermark}</dd>
              </>
            )}
          </dl>
          {source.metrics?.dataLossWarning && (
            <p className="small" role="alert">
              {source.metrics.dataLossWarning}
            </p>
          )}
          {partitionRows(source.metrics).length > 0 && (
            <table className="data compact narrow" aria-label="Offsets and lag by partition">
              <thead>
                <tr>
                  <th>Partition</th>
                  <th className="num">Processed up to</th>
                  <th className="num">Latest</th>
                  <th className="num">Lag</th>
                </tr>
              </thead>
              <tbody>
                {partitionRows(source.metrics).map((r) => (
                  <tr key={r.partition}>
                    <td>{r.partition}</td>
                    <td className="num">{formatNumber(r.offset, 0)}</td>
                    <td className="num">{formatNumber(r.latest, 0)}</td>
                    <td className="num">{formatNumber(r.lag, 0)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      ))}

      {p.eventTime && (
        <>
          <h3>Event time</h3>
          <dl className="kv">
            <dt>Min / avg / max</dt>
            <dd>
              {p.eventTime.min ?? '–'} / {p.eventTime.avg ?? '–'} / {p.eventTime.max ?? '–'}
            </dd>
            <dt>Watermark used</dt>
            <dd>{p.eventTime.watermark}</dd>
            {p.multipleWatermarkPolicy && (
              <>
                <dt>Next watermark</dt>
                <dd>
                  the {p.multipleWatermarkPolicy === 'max' ? 'fastest' : 'slowest'} of the sources&apos; own (multipleWatermarkPolicy <code>{p.multipleWatermarkPolicy}</code>), never back:{' '}
                  {sources.map((s, i) => (s.watermark ? `${sourceNames[i] ?? `source ${i + 1}`} ${s.watermark}` : null)).filter(Boolean).join(', ')}
                </dd>
              </>
            )}
          </dl>
        </>
      )}

      {operators.length > 0 && (
        <>
          <h3>State</h3>
          <TableScroll label="State operators">
            <table className="data compact" aria-label="State operators">
              <thead>
                <tr>
                  <th>Operator</th>
                  <th className="num">Rows total</th>
                  <th className="num" title="State rows updated, and the time reading the batch's input into state (Spark's numRowsUpdated and allUpdatesTimeMs)">Updated</th>
                  <th className="num" title="State rows removed, and the time evicting state behind the watermark (Spark's numRowsRemoved and allRemovalsTimeMs)">Removed</th>
                  <th className="num">Dropped late</th>
                  <th className="num">Memory</th>
                  <th className="num">On disk</th>
                  <th className="num">Commit</th>
                </tr>
              </thead>
              <tbody>
                {operators.map((o, i) => [
                  <tr key={i}>
                    <td>
                      {o.operatorName}
                      {o.numStateStoreInstances !== undefined && o.numStateStoreInstances > 1 && (
                        <div className="muted-text small" title="Spark's numShufflePartitions and numStateStoreInstances">
                          {formatNumber(o.numShufflePartitions, 0)} partition{o.numShufflePartitions === 1 ? '' : 's'}, {formatNumber(o.numStateStoreInstances, 0)} stores
                        </div>
                      )}
                    </td>
                    <td className="num">{formatNumber(o.numRowsTotal, 0)}</td>
                    <td className="num">
                      {formatNumber(o.numRowsUpdated, 0)}
                      {o.allUpdatesTimeMs !== undefined && <div className="muted-text small">{formatDuration(o.allUpdatesTimeMs)}</div>}
                    </td>
                    <td className="num">
                      {formatNumber(o.numRowsRemoved, 0)}
                      {o.allRemovalsTimeMs !== undefined && <div className="muted-text small">{formatDuration(o.allRemovalsTimeMs)}</div>}
                    </td>
                    <td className="num">{formatNumber(o.numRowsDroppedByWatermark, 0)}</td>
                    <td className="num">{formatBytes(o.memoryUsedBytes)}</td>
                    <td className="num">{formatBytes(o.customMetrics?.stateOnDiskBytes as number | undefined)}</td>
                    <td className="num">{formatDuration(o.commitTimeMs)}</td>
                  </tr>,
                  // A join's state by side: which input's buffer grows, and which the watermark evicts.
                  ...joinSides(o).map((x) => (
                    <tr key={`${i}-${x.side}`} className="muted-text">
                      <td style={{ paddingLeft: 24 }}>{x.side} side</td>
                      <td className="num">{formatNumber(x.rows, 0)}</td>
                      <td className="num" />
                      <td className="num">{formatNumber(x.removed, 0)}</td>
                      <td className="num" />
                      <td className="num">{formatBytes(x.memoryBytes)}</td>
                      <td className="num" />
                      <td className="num" />
                    </tr>
                  )),
                ])}
              </tbody>
            </table>
          </TableScroll>
        </>
      )}

      {groups.map(({ stageId, kind, tasks: stageTasks }) => {
        const skew = taskSkew(stageTasks);
        const title = kind === 'map' ? 'Map tasks' : 'Reduce tasks';
        return (
          <div key={`${stageId}-${kind}`}>
            <h3>{stages.length > 1 ? `${title} of stage ${stageId}` : title}</h3>
            {skew && (
              <p className="small">
                Skew: the slowest task took {formatFixed(skew.duration)}× the median, the largest had {formatFixed(skew.rows)}× the median&apos;s input rows.
              </p>
            )}
            <TableScroll label={title}>
              <table className="data compact" aria-label={`${title} of stage ${stageId}`}>
                <thead>
                  <tr>
                    <th className="num">{kind === 'map' ? 'Split' : 'Partition'}</th>
                    <th>Worker</th>
                    <th className="num">Input rows</th>
                    <th className="num">Output rows</th>
                    <th className="num">Shuffle</th>
                    <th className="num">Duration</th>
                    <th className="num">Retries</th>
                  </tr>
                </thead>
                <tbody>
                  {stageTasks.map((t) => (
                    <tr key={t.partitionId}>
                      <td className="num">{t.partitionId}</td>
                      <td>{t.workerId}</td>
                      <td className="num">{formatNumber(t.inputRows, 0)}</td>
                      <td className="num">{formatNumber(t.rows, 0)}</td>
                      <td className="num">{formatBytes(t.shuffleBytes)}</td>
                      <td className="num">{formatDuration(t.durationMs)}</td>
                      <td className="num">{Math.max(0, t.attempt - 1)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
          </div>
        );
      })}

      <details>
        <summary>Full progress JSON</summary>
        <pre aria-label="Progress JSON" tabIndex={0}>
          {JSON.stringify(progress, null, 2)}
        </pre>
      </details>
    </div>
  );
}
