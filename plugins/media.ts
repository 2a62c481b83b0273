import type { MultipartFile } from '@fastify/multipart'
import type { FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { MediaDeps } from '../src/media/deps.js'
import { openMedia, type MediaDownload } from '../src/media/download.js'
import { MIRROR_QUEUE } from '../src/media/inbound.js'
import { checkHeld, holdFile, openChecked, spoolChecked, type HeldFile, type SpooledFile } from '../src/media/intake.js'
import { MIRROR_MAX_ATTEMPTS, mirrorBackoff, mirrorTask } from '../src/media/mirror.js'
import { fileForMessage, withMediaId } from '../src/media/one-call.js'
import { configuredStorage } from '../src/media/stores.js'
import { uploadFromRequest } from '../src/media/upload-request.js'
import { uploadSpooled } from '../src/media/upload.js'
import type { SendRequest } from '../src/send/service.js'
import type { MediaRow } from '../src/store/media.js'
import type { PendingMessage } from '../src/store/messages.js'

export interface MediaFiles {
  /** POST /api/media.php's multipart body, checked and uploaded */
  upload (request: FastifyRequest): Promise<MediaRow>
  /** a one-call send's file part, checked and spooled before anything goes upstream */
  spool (part: MultipartFile): Promise<SpooledFile>
  /** a one-call send's file part that came before the type: spooled unread until the type is known */
  hold (part: MultipartFile): Promise<HeldFile>
  /** a held file, once the type says the message takes it: checked as spool's are */
  check (held: HeldFile): Promise<SpooledFile>
  /** a one-call send's file uploaded: the record's payload with its media id (the send service has checked its key) */
  attach (send: SendRequest, pending: PendingMessage, spooled: SpooledFile): Promise<{ pending: PendingMessage, mediaId: string }>
  open (row: MediaRow): Promise<MediaDownload>
}

declare module 'fastify' {
  interface FastifyInstance { mediaFiles: MediaFiles }
  interface FastifyRequest {
    /** a one-call send's spooled file part; removed once the answer is sent */
    mediaFile?: SpooledFile
  }
  interface FastifyContextConfig {
    /** 'stream': the route reads its multipart body itself (an upload); 'spool': a send that may carry a media file part */
    mediaFile?: 'stream' | 'spool'
  }
}

/** Media (CONTRACT.md 13): uploads, one-call sends, downloads, and the inbound mirror on the work runner. */
export default fp(async function media (app) {
  const deps: MediaDeps = {
    media: app.media, storage: configuredStorage(app.config), upstream: app.upstream, cipher: app.cipher,
    connections: app.connections, log: app.log, maxBytes: app.config.MEDIA_MAX_BYTES
  }
  app.decorateRequest('mediaFile', undefined)
  async function discardSpooledFile (request: FastifyRequest): Promise<void> {
    await request.mediaFile?.spool.discard()
  }
  app.addHook('onResponse', discardSpooledFile)
  app.addHook('onRequestAbort', discardSpooledFile)
  app.decorate('mediaFiles', {
    upload: async request => await uploadFromRequest(deps, request),
    spool: async part => await spoolChecked(await openChecked(part.file, { contentType: part.mimetype, filename: part.filename }, deps.maxBytes), deps.storage),
    hold: async part => await holdFile(part.file, { contentType: part.mimetype, filename: part.filename }, deps.storage, deps.maxBytes),
    check: async held => await checkHeld(held, deps.maxBytes),
    async attach (send, pending, spooled) {
      const token = deps.cipher.decrypt(send.active.connection.accessToken)
      const target = { workspaceId: send.workspaceId, phoneNumberId: send.sender.phoneNumberId, token }
      const uploaded = await uploadSpooled(deps, target, spooled, fileForMessage(send.body, spooled.file))
      return { pending: withMediaId(pending, uploaded.mediaId), mediaId: uploaded.mediaId }
    },
    open: async row => await openMedia(deps, row)
  } satisfies MediaFiles)

  app.work.defineLeased(MIRROR_QUEUE, {
    batch: 8,
    concurrency: 8,
    maxAttempts: MIRROR_MAX_ATTEMPTS,
    backoffMs: mirrorBackoff,
    pollMs: 250
  }, mirrorTask(deps))
}, { name: 'media', dependencies: ['db', 'work', 'upstream', 'connections'] })
