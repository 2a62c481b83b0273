import { fileTypeFromBuffer } from 'file-type'
import { unsupportedMedia } from '../errors.js'
import { compoundFileType, isAnimatedWebp, looksLikeText } from './containers.js'
import { ACCEPTED_TYPES, declaredType, extensionOf, KIND_OF_TYPE, typeOfName, type MediaKind } from './kinds.js'

/** What a file is, from its content: the type sent upstream and the kind it goes as. */
export interface Sniffed {
  mime: string
  kind: MediaKind
  /** an animated sticker (its own size limit) */
  animated: boolean
}

/** What the client said the file is: the part's Content-Type and its file name. */
export interface Declared { contentType?: string, filename?: string }

/** How many leading bytes are read before anything is decided (file-type needs ~4 KB; an OLE directory may sit further). */
export const SNIFF_BYTES = 64 * 1024

// Containers whose content alone does not say which accepted type they hold: the declaration decides among these.
const CONTAINERS: Readonly<Record<string, readonly string[]>> = {
  'application/x-cfb': ['application/msword', 'application/vnd.ms-excel', 'application/vnd.ms-powerpoint'],
  'application/zip': [
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    'application/vnd.openxmlformats-officedocument.presentationml.presentation'
  ],
  // an MP3 behind an ID3 tag larger than the sample
  'application/x-id3': ['audio/mpeg']
}

// The same container either way: an MP4 is audio or video by its tracks, which are not read.
const SAME_CONTAINER = new Set(['video/mp4|audio/mp4', 'audio/mp4|video/mp4'])

/**
 * The file's type from its leading bytes (`sample`; `complete` when it is the whole file), checked
 * against the types WhatsApp accepts and against what the client declared. Throws 422
 * unsupported_media naming the rule broken, and the type detected.
 */
export async function sniff (sample: Buffer, complete: boolean, declared: Declared): Promise<Sniffed> {
  if (sample.length === 0) throw unsupportedMedia('The file is empty')
  const claims = [declaredType(declared.contentType), typeOfName(declared.filename)].filter((type): type is string => type !== undefined)
  let mime = await contentType(sample, complete)
  if (CONTAINERS[mime]) mime = fromContainer(mime, claims)
  if (!KIND_OF_TYPE[mime]) throw unsupportedMedia(`The file's content is ${mime}, a type WhatsApp does not accept (accepted: ${ACCEPTED_TYPES.join(', ')})`)
  for (const claim of claims) {
    const compatible = claim === mime || (mime === 'text/plain' && claim.startsWith('text/')) || SAME_CONTAINER.has(`${mime}|${claim}`)
    if (!compatible) throw unsupportedMedia(`The file is declared as ${claim} but its content is ${mime}`)
  }
  // an MP4 declared as audio goes as audio
  if (mime === 'video/mp4' && claims.includes('audio/mp4')) mime = 'audio/mp4'
  return { mime, kind: KIND_OF_TYPE[mime], animated: mime === 'image/webp' && isAnimatedWebp(sample) }
}

/** The sniffed type, normalised to the names of upstream-facts.md 3.6. */
async function contentType (sample: Buffer, complete: boolean): Promise<string> {
  const found = await fileTypeFromBuffer(sample).catch(() => undefined)
  if (found === undefined) {
    if (looksLikeText(sample, complete)) return 'text/plain'
    return sample.toString('latin1', 0, 3) === 'ID3' ? 'application/x-id3' : 'application/octet-stream'
  }
  if (found.mime === 'application/x-cfb') return compoundFileType(sample) ?? found.mime
  // WhatsApp takes Ogg audio with Opus only (upstream-facts.md 3.6)
  if (found.ext === 'ogg' || found.ext === 'opus' || found.ext === 'ogx' || found.ext === 'oga') return sample.includes('OpusHead') ? 'audio/ogg' : `${found.mime.split(';')[0]} (not Opus)`
  return declaredType(found.mime) ?? found.mime
}

function fromContainer (container: string, claims: string[]): string {
  const claimed = claims.find(claim => CONTAINERS[container].includes(claim))
  if (claimed) return claimed
  const what = container === 'application/x-id3' ? 'an audio file with an ID3 tag' : container === 'application/zip' ? 'a ZIP archive' : 'an OLE compound file'
  throw unsupportedMedia(`The file's content is ${container} (${what}): name it with its extension (${CONTAINERS[container].map(type => `.${extensionOf(type)}`).join(', ')}) or declare its type`)
}

/** The kind an MP4 goes as for a message of `type`: an audio message may carry an MP4 sniffed as video. */
export function asKind<File extends Sniffed> (file: File, type: MediaKind): File {
  if (type === 'audio' && file.mime === 'video/mp4') return { ...file, mime: 'audio/mp4', kind: 'audio' }
  return file
}
