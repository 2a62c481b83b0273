import { GraphError } from './graph-error.js'

const MB = 1024 * 1024
const KB = 1024

// upstream-facts.md 3.6: what an upload may be, and how large. Stickers: 100 KB static, 500 KB animated.
const LIMITS: Record<string, number> = {
  'audio/aac': 16 * MB, 'audio/amr': 16 * MB, 'audio/mpeg': 16 * MB, 'audio/mp4': 16 * MB, 'audio/ogg': 16 * MB,
  'text/plain': 100 * MB, 'application/pdf': 100 * MB, 'application/msword': 100 * MB, 'application/vnd.ms-excel': 100 * MB,
  'application/vnd.ms-powerpoint': 100 * MB,
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 100 * MB,
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 100 * MB,
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': 100 * MB,
  'image/jpeg': 5 * MB, 'image/png': 5 * MB,
  'video/mp4': 16 * MB, 'video/3gpp': 16 * MB,
  'image/webp': 500 * KB
}

/** Refuses an upload as the upstream does (131053) when its type is not accepted or it is too large. */
export function checkUpload (type: string, size: number): void {
  const mime = type.split(';')[0].trim().toLowerCase()
  const limit = LIMITS[mime]
  if (limit === undefined) throw new GraphError(131053, { details: `Param file must be a file with one of the following types: ${Object.keys(LIMITS).join(', ')}. Received file of type '${mime}'.` })
  if (size > limit) throw new GraphError(131053, { details: `File of type ${mime} is too large: ${size} bytes, at most ${limit}.` })
  if (size === 0) throw new GraphError(131053, { details: 'The file is empty.' })
}
