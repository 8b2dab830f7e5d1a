/**
 * Your account: changing your own password (which ends your other sessions), and your sessions
 * with where and when each was used, each one ended with its own "Sign out".
 */
import { useState } from "preact/hooks"

import type { OwnSession } from "../../../../domain/Team.js"
import { endSession } from "../core/api.js"
import type { Screen } from "../core/Screen.js"
import { ConfirmButton, FailureMessage, StatusMessage, WhenText } from "../ui/feedback.js"
import { TextField } from "../ui/fields.js"
import { useListScreen, useSubmit } from "../ui/requests.js"
import { ResourceForm, ResourceTable, useRowActions } from "../ui/resources.js"

const PasswordForm = (props: { readonly onChanged: () => void }) => {
  const [current, setCurrent] = useState("")
  const [next, setNext] = useState("")
  const [repeated, setRepeated] = useState("")
  const [mismatch, setMismatch] = useState(false)
  const [message, setMessage] = useState("")
  const { failure, busy, submit, fieldError } = useSubmit()

  const save = async () => {
    setMessage("")
    if (next !== repeated) {
      setMismatch(true)
      return
    }
    setMismatch(false)
    const outcome = await submit((api) =>
      api.auth.changePassword({ payload: { currentPassword: current, newPassword: next } })
    )
    if (outcome.ok) {
      setCurrent("")
      setNext("")
      setRepeated("")
      setMessage("Your password was changed; your other sessions were signed out.")
      props.onChanged()
    }
  }

  return (
    <ResourceForm
      id="password"
      message={message}
      failure={failure}
      busy={busy}
      submitLabel="Change password"
      onSubmit={save}
    >
      <TextField
        id="password-current"
        label="Current password"
        type="password"
        autoComplete="current-password"
        required
        value={current}
        onInput={setCurrent}
        error={fieldError("currentPassword")}
      />
      <TextField
        id="password-new"
        label="New password"
        type="password"
        autoComplete="new-password"
        required
        value={next}
        onInput={setNext}
        hint="At least 12 characters. Your other sessions end when it changes."
        error={fieldError("newPassword")}
      />
      <TextField
        id="password-repeat"
        label="Repeat the new password"
        type="password"
        autoComplete="new-password"
        required
        value={repeated}
        onInput={setRepeated}
        error={mismatch ? "The two passwords differ." : undefined}
      />
    </ResourceForm>
  )
}

const SessionRow = (props: { readonly session: OwnSession; readonly onChanged: (message: string) => void }) => {
  const { session } = props
  const { failure, act } = useRowActions(props.onChanged)
  const signOut = async () => {
    const outcome = await act(
      (api) => api.auth.revokeSession({ params: { id: session.id } }),
      () => "The session was signed out."
    )
    // Ending this very session signs this browser out.
    if (outcome.ok && session.current) endSession()
  }
  return (
    <tr>
      <th scope="row">
        <WhenText at={session.createdAt} />
        {session.current && <span class="badge ok">this session</span>}
        <FailureMessage failure={failure} />
      </th>
      <td>
        <WhenText at={session.lastSeenAt} />
      </td>
      <td>{session.clientAddress ?? <span class="muted">unknown</span>}</td>
      <td>
        <ConfirmButton
          label="Sign out"
          name={`Sign out the session started ${new Date(session.createdAt).toLocaleString()}`}
          confirmLabel={`${session.current ? "Sign out this session" : "Sign out that session"} (started ${
            new Date(session.createdAt).toLocaleString()
          })`}
          onConfirm={signOut}
        />
      </td>
    </tr>
  )
}

const AccountView = () => {
  const sessions = useListScreen((api) => api.auth.listSessions())
  return (
    <>
      <h1>Your account</h1>
      <section aria-labelledby="password-title">
        <h2 id="password-title">Change your password</h2>
        <PasswordForm onChanged={() => void sessions.reload()} />
      </section>
      <section aria-labelledby="sessions-title">
        <h2 id="sessions-title">Your sessions</h2>
        <StatusMessage text={sessions.message} />
        <ResourceTable
          loaded={sessions.loaded}
          caption="Your sessions"
          columns={["Started", "Last used", "Address", "Actions"]}
          empty="No sessions."
        >
          {(session) => <SessionRow key={session.id} session={session} onChanged={sessions.changed} />}
        </ResourceTable>
      </section>
    </>
  )
}

export const AccountScreen: Screen = {
  path: "account",
  group: "settings",
  title: "Your account",
  needs: "auth.listSessions",
  View: AccountView
}
