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
