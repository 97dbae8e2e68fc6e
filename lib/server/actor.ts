/**
 * Who did something, as a person reads it. The audit log records the actor as `user:<username>`
 * or `token:<token name>` (lib/server/auth.ts), so a user and a token of the same name stay
 * apart in the record; pages and messages show the name alone, as the navigation does. Pure, so
 * the dashboard's components use it as well as the server's messages.
 */
export function actorName(actor: string): string {
  return actor.replace(/^(user|token):/, '');
}
