import type { FastifyInstance } from 'fastify'
import { addEndpoint } from '../../src/events/endpoints.js'

/** Adds an endpoint as the CLI and the dashboard do; returns its id and the secret shown once. */
export async function subscribe (app: FastifyInstance, workspaceId: string, url: string, events?: string[]) {
  const { endpoint, secret } = await addEndpoint({ webhooks: app.webhooks, cipher: app.cipher, config: app.config }, { workspaceId, url, events })
  return { id: endpoint.id, secret }
}
