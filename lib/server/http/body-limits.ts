/**
 * The API's size limits on what a client sends, in a module of their own so that the browser's
 * forms check them before sending (and say which part is too large) as the API does after.
 */

/** A request body over this many bytes is refused (413). */
export const MAX_BODY_BYTES = 1024 * 1024;
/** A preview's pasted sample: at most this many records. */
export const MAX_PREVIEW_SAMPLE_RECORDS = 1000;
