import type { FastifyPluginAsync } from 'fastify'
import { applyFaults } from '../apply-faults.js'
import { authorizeWaba } from '../auth.js'
import type { EmulatorContext } from '../context.js'
import { invalidParameter } from '../graph-error.js'
import { verifyCallback } from '../handshake.js'
import { isObject, requireString } from '../json.js'

const APP = { id: '670843887433847', name: 'Outbound Emulator App', link: 'https://www.facebook.com/games/?app_id=670843887433847' }

export function subscribedAppRoutes (context: EmulatorContext): FastifyPluginAsync {
  return async function subscribedApps (app) {
    app.post<{ Params: { id: string } }>('/:id/subscribed_apps', async function subscribe (request, reply) {
      const waba = authorizeWaba(context, request)
      if (await applyFaults(context.faults, request, reply, {})) return reply
      const body = isObject(request.body) ? request.body : {}
      const uri = body.override_callback_uri
      if (uri === undefined || uri === '') {
        waba.subscribed = true
        waba.callback = undefined
        return { success: true }
      }
      const callback = checkCallbackUri(requireString(uri, 'override_callback_uri'))
      await verifyCallback(callback, requireString(body.verify_token, 'verify_token'))
      waba.subscribed = true
      waba.callback = callback
      return { success: true }
    })

    app.get<{ Params: { id: string } }>('/:id/subscribed_apps', async function listSubscriptions (request, reply) {
      const waba = authorizeWaba(context, request)
      if (await applyFaults(context.faults, request, reply, {})) return reply
      if (!waba.subscribed) return { data: [] }
      const override = waba.callback ? { override_callback_uri: waba.callback } : {}
      return { data: [{ whatsapp_business_api_data: APP, ...override }] }
    })

    app.delete<{ Params: { id: string } }>('/:id/subscribed_apps', async function unsubscribe (request, reply) {
      const waba = authorizeWaba(context, request)
      if (await applyFaults(context.faults, request, reply, {})) return reply
      waba.subscribed = false
      waba.callback = undefined
      return { success: true }
    })
  }
}

function checkCallbackUri (uri: string): string {
  if (uri.length > 200) throw invalidParameter('Param override_callback_uri must be at most 200 characters long.')
  if (!URL.canParse(uri) || !/^https?:$/.test(new URL(uri).protocol)) {
    throw invalidParameter('Param override_callback_uri must be a valid URL.')
  }
  return uri
}
