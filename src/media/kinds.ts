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
 * Each kind's size limit (upstream-facts.md 3.6), in binary units like MEDIA_MAX_BYTES (100 MiB,
 * the document limit): stickers 100 KB static, 500 KB animated.
 */
export function sizeLimit (kind: MediaKind, animated = false): { bytes: number, label: string } {
  switch (kind) {
    case 'image': return { bytes: 5 * MB, label: '5 MB' }
    case 'video':
    case 'audio': return { bytes: 16 * MB, label: '16 MB' }
    case 'document': return { bytes: 100 * MB, label: '100 MB' }
    case 'sticker': return animated ? { bytes: 500 * KB, label: '500 KB' } : { bytes: 100 * KB, label: '100 KB' }
  }
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
