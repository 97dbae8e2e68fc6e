/** The outbound policy (see outbound-policy.ts): checks, destination parsing and guarded connections. */
export * from './address';
export * from './outbound-policy';
export * from './destinations';
export * from './spec-destinations';
export * from './guarded-connect';
