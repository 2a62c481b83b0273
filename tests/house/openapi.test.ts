import { validate, compileErrors } from '@readme/openapi-parser'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import openapiTS, { astToString } from 'openapi-typescript'
import ts from 'typescript'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { useGateway } from '../helpers/use-gateway.js'

type Json = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']

/** Every operation of the document, as `METHOD path` with its object. */
function operationsOf (document: Json): Array<[string, Json]> {
  return Object.entries(document.paths as Json).flatMap(([path, item]) =>
    Object.entries(item as Json).filter(([method]) => METHODS.includes(method)).map(([method, operation]): [string, Json] => [`${method.toUpperCase()} ${path}`, operation]))
}

/** Every `description` and `summary` in the document, with where it is. */
function textsOf (value: unknown, at = '#'): Array<[string, string]> {
  if (Array.isArray(value)) return value.flatMap((item, index) => textsOf(item, `${at}/${index}`))
  if (value === null || typeof value !== 'object') return []
  return Object.entries(value).flatMap(([key, inner]) =>
    (key === 'description' || key === 'summary') && typeof inner === 'string' ? [[`${at}/${key}`, inner] as [string, string]] : textsOf(inner, `${at}/${key}`))
}

// The client a user generates: typed by the document alone, checked by the TypeScript compiler, then run.
const CLIENT = `import createClient from 'openapi-fetch'
import type { paths } from './api.js'

export async function sendAndRead (baseUrl: string, authorization: string, to: string) {
  const client = createClient<paths>({ baseUrl, headers: { authorization } })
  const sent = await client.POST('/api/messages.php', {
    params: { header: { 'idempotency-key': 'openapi-client-1' } },
    body: { to, body: 'Hello from a generated client' }
  })
  if (!sent.data) throw new Error('send failed: ' + JSON.stringify(sent.error))
  // 200 or, with Prefer: respond-async, 202: the types make the client tell them apart
  if (sent.data.status !== 'sent') throw new Error('queued, not sent')
  const wamid: string = sent.data.wamid
  const read = await client.GET('/api/messages.php', { params: { query: { id: sent.data.id } } })
  const listed = await client.GET('/api/messages.php', { params: { query: { limit: 1 } } })
  const status: string | undefined = read.data?.message?.status
  return { id: sent.data.id, wamid, status, listed: listed.data?.messages?.length, replayed: sent.response.headers.get('idempotent-replayed') }
}
`

describe('the OpenAPI document at /docs/json', () => {
  const ctx = useGateway()
  let document: Json
  const scratch = join(process.cwd(), 'node_modules', '.cache', `openapi-client-${process.pid}`)

  beforeAll(async () => {
    document = await (await fetch(`${ctx.gateway.url}/docs/json`)).json() as Json
  })
  afterAll(async () => { await rm(scratch, { recursive: true, force: true }) })

  it('is a valid OpenAPI document (@readme/openapi-parser), with this gateway as its server', async () => {
    const result = await validate(structuredClone(document) as Parameters<typeof validate>[0])
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true)
    expect(result.warnings).toEqual([])
    expect(document.servers).toEqual([{ url: ctx.gateway.url, description: expect.any(String) }])
  })

  it('names every operation with an operationId, each unique', () => {
    const operations = operationsOf(document)
    expect(operations.length).toBeGreaterThanOrEqual(4)
    expect(operations.filter(([, operation]) => typeof operation.operationId !== 'string' || operation.operationId === '').map(([name]) => name)).toEqual([])
    const ids = operations.map(([, operation]) => operation.operationId as string)
    expect(new Set(ids).size).toBe(ids.length)
    expect(Object.fromEntries(operations.map(([name, operation]) => [name, operation.operationId]))).toMatchObject({
      'POST /api/messages.php': 'sendMessage', 'GET /api/messages.php': 'readMessages', 'POST /api/media.php': 'uploadMedia', 'GET /api/media.php': 'readMedia'
    })
  })

  it('documents the headers a client sends and gets, each with a description', () => {
    const send = document.paths['/api/messages.php'].post
    const headers = Object.fromEntries((send.parameters as Json[]).filter(parameter => parameter.in === 'header').map(parameter => [parameter.name, parameter]))
    expect(Object.keys(headers).sort()).toEqual(['idempotency-key', 'prefer'])
    expect(headers.prefer.description).toContain('respond-async')
    expect(headers['idempotency-key'].description).toContain('Idempotent-Replayed')
    expect(Object.keys(send.responses['202'].headers).sort()).toEqual(['Idempotent-Replayed', 'Location', 'Preference-Applied'])
    expect(Object.keys(send.responses['4XX'].headers)).toEqual(expect.arrayContaining(['Retry-After', 'RateLimit-Reset', 'WWW-Authenticate']))
    for (const [name, operation] of operationsOf(document)) {
      for (const [status, response] of Object.entries(operation.responses as Json)) {
        for (const [header, object] of Object.entries((response.headers ?? {}) as Json)) {
          expect(object.description, `${name} ${status} ${header}`).toEqual(expect.stringMatching(/\S/))
        }
      }
    }
  })

  it('types what it says exactly: limit an integer, upstream.code a number, a message\'s error.code a string', () => {
    const read = document.paths['/api/messages.php'].get
    const limit = (read.parameters as Json[]).find(parameter => parameter.name === 'limit')!
    expect(limit.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 })
    for (const [name, operation] of operationsOf(document)) {
      const envelope = operation.responses['5XX']?.content?.['application/json']?.schema
      if (envelope?.properties?.upstream) expect(envelope.properties.upstream.properties.code, name).toMatchObject({ type: 'integer' })
    }
    const message = read.responses['200'].content['application/json'].schema.properties.message
    const error = message.properties.error
    expect(error).toMatchObject({ type: 'object', nullable: true })
    expect(error.properties.code).toMatchObject({ type: 'string' })
    expect(error.properties.code.description).toMatch(/string/)
  })

  it('cites no internal document in a description', () => {
    const citing = textsOf(document).filter(([, text]) => /CONTRACT|SPEC\.md|upstream-facts|decisions\.md|\b[\w-]+\.md\b/.test(text))
    expect(citing).toEqual([])
  })

  it('generates a typed client (openapi-typescript) that type-checks and sends a real message through openapi-fetch', async () => {
    await mkdir(scratch, { recursive: true })
    await writeFile(join(scratch, 'api.d.ts'), astToString(await openapiTS(structuredClone(document) as Parameters<typeof openapiTS>[0])))
    await writeFile(join(scratch, 'client.ts'), CLIENT)
    const program = ts.createProgram([join(scratch, 'client.ts')], {
      strict: true, noEmit: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, skipLibCheck: true, lib: ['lib.es2022.d.ts', 'lib.dom.d.ts']
    })
    const diagnostics = ts.getPreEmitDiagnostics(program).map(diagnostic => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'))
    expect(diagnostics).toEqual([])

    // the same client, run: the compiler's output beside it (plain JavaScript Node imports as is)
    const output = ts.transpileModule(CLIENT.replace("'./api.js'", "'./api.d.ts'"), { compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 } }).outputText
    await writeFile(join(scratch, 'client.mjs'), output)
    const client = await import(/* @vite-ignore */ pathToFileURL(join(scratch, 'client.mjs')).href) as { sendAndRead: (baseUrl: string, authorization: string, to: string) => Promise<Record<string, unknown>> }
    const result = await client.sendAndRead(document.servers[0].url as string, ctx.workspace.authorization, '+15554440001')
    expect(result).toMatchObject({ id: expect.stringMatching(/^msg_/), wamid: expect.stringMatching(/^wamid\./), listed: 1, replayed: null })
    expect(['sent', 'delivered', 'read']).toContain(result.status)
    expect(ctx.gateway.emulator.sentMessages.filter(sent => sent.to === '15554440001')).toHaveLength(1)
  })
})
