import type { FastifyReply, FastifyRequest } from 'fastify'

// Scripts and styles only from the dashboard's own files: an injected inline script would not run.
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "connect-src 'self'",
  "form-action 'self'", "frame-ancestors 'none'", "base-uri 'none'", "object-src 'none'"
].join('; ')

/** onSend: every dashboard answer; pages are never cached (one shows a secret once). A customer's file keeps its own, stricter `sandbox`. */
export async function securityHeaders (_request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  if (!reply.hasHeader('content-security-policy')) reply.header('content-security-policy', CONTENT_SECURITY_POLICY)
  reply.header('x-content-type-options', 'nosniff')
  reply.header('x-frame-options', 'DENY')
  reply.header('referrer-policy', 'same-origin')
  if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store')
  return payload
}
