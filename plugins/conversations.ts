import fp from 'fastify-plugin'
import { createReadPolicy, type ReadPolicy } from '../src/conversations/policy.js'
import { createReadMarks, type ReadMarks } from '../src/conversations/read-marks.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Read receipts and typing indicators upstream (CONTRACT.md 19: src/conversations/read-marks.ts). */
    readMarks: ReadMarks
    /** The workspace's read-receipt policy and the typing renewals, on the durable-work runner. */
    readPolicy: ReadPolicy
  }
}

export default fp(async function conversations (app) {
  const readMarks = createReadMarks({
    inbound: app.inbound,
    connections: app.connections,
    cipher: app.cipher,
    upstream: app.upstream,
    pacer: app.pacer,
    throughputMps: app.config.THROUGHPUT_MPS,
    deadlineMs: app.config.DISPATCH_DEADLINE_MS
  })
  app.decorate('readMarks', readMarks)
  app.decorate('readPolicy', createReadPolicy({ work: app.work, readMarks, inbound: app.inbound, conversations: app.conversations, log: app.log }))
}, { name: 'conversations', dependencies: ['db', 'work', 'upstream', 'pacer'] })
