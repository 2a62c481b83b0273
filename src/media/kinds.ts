export const MEDIA_KINDS = ['image', 'video', 'audio', 'document', 'sticker'] as const
export type MediaKind = typeof MEDIA_KINDS[number]

const KB = 1024
const MB = 1024 * KB

/** upstream-facts.md 3.6: the types WhatsApp accepts, by kind. WebP goes only as a sticker. */
export const KIND_OF_TYPE: Readonly<Record<string, MediaKind>> = {
  'image/jpeg': 'image',
  'image/png': 'image',
  'video/mp4': 'video',
  'video/3gpp': 'video',
  'audio/aac': 'audio',
  'audio/amr': 'audio',
  'audio/mpeg': 'audio',
  'audio/mp4': 'audio',
  'audio/ogg': 'audio',
  'text/plain': 'document',
  'application/pdf': 'document',
  'application/msword': 'document',
  'application/vnd.ms-excel': 'document',
  'application/vnd.ms-powerpoint': 'document',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'document',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'document',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': 'document',
  'image/webp': 'sticker'
}

export const ACCEPTED_TYPES = Object.keys(KIND_OF_TYPE)

/**
 * Each kind's size limit (upstream-facts.md 3.6, CONTRACT.md 13: image 5 MB, video and audio 16 MB,
 * document 100 MB, sticker 100 KB static / 500 KB animated), in bytes. Neither document counts a MB
 * in bytes: it is read as 1,048,576 (binary, as MEDIA_MAX_BYTES's default of 100 MiB, the document
 * limit, and the emulator count it). The label says both, as every size refusal does.
 */
export function sizeLimit (kind: MediaKind, animated = false): { bytes: number, label: string } {
  const bytes = kind === 'image' ? 5 * MB
    : kind === 'video' || kind === 'audio' ? 16 * MB
      : kind === 'document' ? 100 * MB
        : animated ? 500 * KB : 100 * KB
  return { bytes, label: sizeLabel(bytes) }
}

/** A size as the refusals state it: "5 MB (5242880 bytes)", "100001 bytes" when it is no whole KB. */
export function sizeLabel (bytes: number): string {
  const unit = bytes % MB === 0 ? `${bytes / MB} MB` : bytes % KB === 0 ? `${bytes / KB} KB` : undefined
  return unit === undefined ? `${bytes} bytes` : `${unit} (${bytes} bytes)`
}

// What a client may write for a type we know by another name.
const ALIASES: Readonly<Record<string, string>> = {
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'audio/mp3': 'audio/mpeg',
  'audio/x-mp3': 'audio/mpeg',
  'audio/mpeg3': 'audio/mpeg',
  'audio/x-mpeg': 'audio/mpeg',
  'audio/x-m4a': 'audio/mp4',
  'audio/m4a': 'audio/mp4',
  'audio/opus': 'audio/ogg',
  'application/ogg': 'audio/ogg',
  'audio/x-aac': 'audio/aac',
  'audio/aacp': 'audio/aac',
  'video/3gp': 'video/3gpp',
  'application/x-pdf': 'application/pdf'
}

// A file name's extension as a declared type; also types WhatsApp refuses, so that a .gif named as such is caught.
const EXTENSIONS: Readonly<Record<string, string>> = {
  jpg: 'image/jpeg', jpeg: 'image/jpeg', jpe: 'image/jpeg', jfif: 'image/jpeg', png: 'image/png', webp: 'image/webp',
  gif: 'image/gif', bmp: 'image/bmp', tif: 'image/tiff', tiff: 'image/tiff', heic: 'image/heic', avif: 'image/avif', svg: 'image/svg+xml',
  mp4: 'video/mp4', m4v: 'video/mp4', '3gp': 'video/3gpp', mov: 'video/quicktime', avi: 'video/x-msvideo', mkv: 'video/x-matroska', webm: 'video/webm',
  mp3: 'audio/mpeg', aac: 'audio/aac', amr: 'audio/amr', ogg: 'audio/ogg', oga: 'audio/ogg', opus: 'audio/ogg', m4a: 'audio/mp4', wav: 'audio/wav', flac: 'audio/flac',
  txt: 'text/plain', text: 'text/plain', log: 'text/plain', csv: 'text/csv', html: 'text/html', htm: 'text/html', pdf: 'application/pdf',
  doc: 'application/msword', xls: 'application/vnd.ms-excel', ppt: 'application/vnd.ms-powerpoint',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  zip: 'application/zip', exe: 'application/x-msdownload'
}

// Says nothing about the content: no declaration at all.
const GENERIC = new Set(['', 'application/octet-stream', 'binary/octet-stream', 'application/unknown', 'application/x-unknown', 'application/binary'])

/** A Content-Type as a declared type: parameters dropped, aliases resolved; undefined when it says nothing. */
export function declaredType (contentType: string | undefined): string | undefined {
  const bare = (contentType ?? '').split(';')[0].trim().toLowerCase()
  return GENERIC.has(bare) ? undefined : ALIASES[bare] ?? bare
}

/** A file name's extension as a declared type; undefined for a name without a known extension. */
export function typeOfName (filename: string | undefined): string | undefined {
  const extension = /\.([a-z0-9]{1,5})$/i.exec(filename ?? '')?.[1].toLowerCase()
  return extension === undefined ? undefined : EXTENSIONS[extension]
}

/** The usual extension of an accepted type, for a download's file name. */
export function extensionOf (type: string): string {
  const found = Object.entries(EXTENSIONS).find(([, mime]) => mime === type)
  return found ? found[0] : 'bin'
}
