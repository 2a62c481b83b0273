import { mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { describeFailure } from '../../src/cli/describe-failure.js'
import { rejection } from '../../src/upstream/answer.js'
import { runCli } from '../helpers/cli.js'
import { TEST_ENCRYPTION_KEY } from '../helpers/config.js'
import { useGateway } from '../helpers/use-gateway.js'

describe('error texts say exactly what happened', () => {
  const ctx = useGateway({ env: { BODY_LIMIT_BYTES: '4096' } })
  const post = async (url: string, payload: string, headers: Record<string, string>) =>
    await ctx.gateway.app.inject({ method: 'POST', url, payload, headers: { authorization: ctx.workspace.authorization, ...headers } })

  it('413 names the limit in force', async () => {
    const response = await post('/api/messages.php', JSON.stringify({ to: '15551234567', body: 'x'.repeat(5000) }), { 'content-type': 'application/json' })
    expect(response.statusCode).toBe(413)
    expect(response.json()).toEqual({ ok: false, code: 'payload_too_large', error: 'Request body is larger than 4096 bytes' })
  })

  it('415 names the content type received, or says none was given; never "undefined"', async () => {
    const typed = await post('/api/messages.php', 'to=1', { 'content-type': 'text/csv' })
    expect(typed.statusCode).toBe(415)
    expect(typed.json().error).toContain('"text/csv"')
    const untyped = await ctx.gateway.app.inject({ method: 'POST', url: '/api/messages.php', payload: Buffer.from('to=1'), headers: { authorization: ctx.workspace.authorization } })
    expect(untyped.statusCode).toBe(415)
    expect(untyped.json().error).toBe('The request has a body but no Content-Type: send application/json or form fields')
    for (const headers of [{ 'content-type': 'text/csv' }, {}] as Record<string, string>[]) {
      const page = await ctx.gateway.app.inject({ method: 'POST', url: '/dashboard/login', payload: Buffer.from('email=a'), headers })
      expect(page.statusCode).toBe(415)
      expect(page.body).not.toContain('undefined')
      expect(page.body).toContain(headers['content-type'] ? '&quot;text/csv&quot;' : 'no Content-Type')
    }
  })

  it('an upstream error whose fields are not texts is described in words, never [object Object]', () => {
    expect(rejection(400, { error: { message: { nested: true }, code: { x: 1 }, type: ['a'] } }, undefined).message).toBe('The upstream answered HTTP 400')
    expect(rejection(400, { error: 'Invalid token' }, undefined).message).toBe('Invalid token')
    for (const thrown of [{ a: 1 }, new Error({ toString: () => '[object Object]' } as unknown as string), { code: 'ECONNRESET' }, 'text', null, undefined, { message: { deep: 1 } }]) {
      const line = describeFailure(thrown)
      expect(line, String(thrown)).not.toContain('[object Object]')
      expect(line).toMatch(/^unexpected error: \S/)
    }
  })

  it('the CLI prints the upstream\'s refusal in words when its answer is not the usual shape', async () => {
    const upstream = createServer((_request, response) => {
      response.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: { text: 'odd' }, code: { n: 1 } } }))
    })
    await new Promise<void>(resolve => upstream.listen(0, '127.0.0.1', resolve))
    const dataDir = await mkdtemp(join(tmpdir(), 'outbound-hostile-cli-'))
    try {
      const env = { DATA_DIR: dataDir, GRAPH_API_URL: `http://127.0.0.1:${(upstream.address() as { port: number }).port}`, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY, LOG_LEVEL: 'silent' }
      const workspace = await runCli(['workspace', 'create', '--name', 'Texts', '--plan', 'growth'], env)
      expect(workspace.code).toBe(0)
      const connected = await runCli(['connect', '--workspace', workspace.json.id, '--waba-id', '123', '--access-token', 'token-for-the-test'], env)
      expect(connected.code).toBe(1)
      expect(connected.json).toEqual({ ok: false, error: 'upstream refused: The upstream answered HTTP 400' })
      expect(connected.stderr).not.toContain('[object Object]')
    } finally {
      upstream.close()
      await rm(dataDir, { recursive: true, force: true })
    }
  }, 120_000)
})
