/**
 * A send found its Idempotency-Key held by another record (before an upload, or when its record's
 * statement did not take the key): nothing more is done, and the idempotency plugin answers the
 * request from the key (a replay, 409 or 422). `print` is the send's fingerprint, to compare.
 */
export class KeyHeld extends Error {
  constructor (readonly print: string) {
    super('the Idempotency-Key is held by another record')
  }
}
