/**
 * Weir's release, as version() reports it (Spark's SparkVersion gives its release the same way).
 * Kept equal to package.json's version by version.test.ts.
 */
export const WEIR_VERSION = '0.1.0';
