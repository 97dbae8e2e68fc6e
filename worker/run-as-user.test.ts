import { describe, expect, it } from 'vitest';
import { runAsUser } from './run-processor';

describe('runAsUser', () => {
  it("is the job creator's user name, a token's actor, or none (the engine's default)", () => {
    expect(runAsUser('user:alice')).toBe('alice');
    expect(runAsUser('token:ci')).toBe('token:ci');
    expect(runAsUser(null)).toBeUndefined();
  });
});
