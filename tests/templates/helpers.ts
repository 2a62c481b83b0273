import { connectWorkspace } from '../../src/connections/connect.js'
import type { ConnectedWorkspace, TestGateway } from '../helpers/gateway.js'

export const URL = '/api/templates.php'

/** A valid template in the API's create shape: a header, a body with two placeholders, a footer, three buttons. */
export function orderUpdate (name: string, overrides: Record<string, unknown> = {}) {
  return {
    name,
    language: 'en_US',
    category: 'UTILITY',
    components: [
      { type: 'HEADER', format: 'TEXT', text: 'Order {{1}} shipped', example: { header_text: ['860198'] } },
      { type: 'BODY', text: 'Hi {{1}}, order {{2}} is on its way.', example: { body_text: [['Pablo', '860198-230332']] } },
      { type: 'FOOTER', text: 'Not you? Ignore this message.' },
      { type: 'BUTTONS', buttons: [
        { type: 'QUICK_REPLY', text: 'Thanks' },
        { type: 'URL', text: 'Track order', url: 'https://example.com/track?id={{1}}', example: ['860198'] },
        { type: 'PHONE_NUMBER', text: 'Call us', phone_number: '15550051310' }
      ] }
    ],
    ...overrides
  }
}

export async function templatesApi (gateway: TestGateway, workspace: Pick<ConnectedWorkspace, 'authorization'>, method: 'GET' | 'POST' | 'DELETE', query = '', payload?: unknown) {
  return await gateway.app.inject({ method, url: `${URL}${query}`, headers: { authorization: workspace.authorization }, ...(payload !== undefined && { payload: payload as object }) })
}

/** The catalog's entry, read through the API. */
export async function readTemplate (gateway: TestGateway, workspace: Pick<ConnectedWorkspace, 'authorization'>, id: string) {
  const answer = await templatesApi(gateway, workspace, 'GET', `?id=${id}`)
  return answer.statusCode === 200 ? answer.json().template : undefined
}

let wabas = 0

/** A workspace connected to a WABA of its own (no templates): a catalog that only its tests change. */
export async function ownWabaWorkspace (gateway: TestGateway) {
  const n = ++wabas
  const account = { wabaId: `4040000000${n}`, accessToken: `templates-token-${n}`, phoneNumbers: [{ id: `4041000000${n}`, displayPhoneNumber: `+1 555-040-${String(n).padStart(4, '0')}`, verifiedName: 'Templates' }], templates: [] }
  gateway.emulator.addAccount(account)
  const workspace = await gateway.app.workspaces.create(`templates ${n}`, 'growth')
  await connectWorkspace(gateway.app.connectDeps, { workspaceId: workspace.id, wabaId: account.wabaId, accessToken: account.accessToken })
  const { key, secret } = await gateway.app.keys.create(workspace.id, 'templates')
  return { workspaceId: workspace.id, wabaId: account.wabaId, authorization: `Bearer ${secret}`, apiKeyId: key.id }
}
