import { describe, expect, it } from 'vitest';
import { actorName } from './actor';

describe('actorName', () => {
  it('shows a user or an API token by its name alone', () => {
    expect(actorName('user:admin')).toBe('admin');
    expect(actorName('token:ci-deploy')).toBe('ci-deploy');
  });

  it('keeps a name that itself holds a colon after the prefix', () => {
    expect(actorName('user:ops:night')).toBe('ops:night');
  });

  it('leaves an actor without a known prefix as it is', () => {
    expect(actorName('system')).toBe('system');
    expect(actorName('username:x')).toBe('username:x');
  });
});
