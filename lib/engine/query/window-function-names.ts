/**
 * The names of Spark's window functions, which only a window computes (WindowFunction): read by
 * window-functions.ts to plan them and by the expression compiler to refuse one called without
 * OVER as Spark does, apart from the window planning that imports the compiler.
 */

/** Spark's ranking functions (RankLike, RowNumber, NTile, CumeDist): ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW, an ORDER BY needed. */
export const RANKING = new Set(['row_number', 'rank', 'dense_rank', 'percent_rank', 'cume_dist', 'ntile']);
/** Spark's FrameLessOffsetWindowFunction: the row `offset` rows from the current one, whatever the frame. */
export const OFFSET = new Set(['lag', 'lead']);
/** Spark's window functions with a frame of their own, which any other frame refuses (_LEGACY_ERROR_TEMP_1036): RowNumber's ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW, CumeDist's the same RANGE. */
export const ROW_FRAMED = new Set([...RANKING, ...OFFSET, 'counter_diff']);
/** Every window function: no aggregate or scalar function has the name. */
export const WINDOW_ONLY = new Set([...ROW_FRAMED, 'nth_value']);
