/** Whether a `Prefer` header (RFC 7240: comma-separated preferences, each with optional `;` parameters) asks for respond-async. */
export function prefersRespondAsync (header: string | string[] | undefined): boolean {
  if (header === undefined) return false
  return [header].flat().join(',').split(',').some(preference => preference.split(';')[0].trim().toLowerCase() === 'respond-async')
}
