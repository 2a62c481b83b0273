import { AccountError, createUser, isEmailAddress } from '../../dashboard/accounts.js'
import { publicUser } from '../../resources/user.js'
import { CommandError, defineCommand } from '../command.js'
import { text, UsageError, type Flag } from '../flags.js'

const email: Flag<string> = {
  placeholder: 'E',
  required: true,
  parse (value, name) {
    const given = text('E').parse(value, name).trim()
    if (!isEmailAddress(given)) throw new UsageError(`--${name} must be an email address`)
    return given
  }
}

export const userCreate = defineCommand({
  summary: 'creates a dashboard user in a workspace; the generated password is shown this once',
  flags: { workspace: text('ID'), email },
  async run ({ workspace, email }, runtime) {
    try {
      const { user, password } = await createUser(runtime.stores, { workspaceId: workspace, email })
      return { ...publicUser(user), password }
    } catch (error) {
      if (error instanceof AccountError) throw new CommandError(error.message)
      throw error
    }
  }
})
