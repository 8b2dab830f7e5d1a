/**
 * The dashboard: who is signed in, the navigation built from the screen registry, and the
 * current screen. Any 401 from the API (session expired or ended) returns to the sign-in form.
 */
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks"

import type { User } from "../../../domain/Auth.js"
import { call, onSignedOut } from "./core/api.js"
import type { Failure } from "./core/failure.js"
import { href, useRoute } from "./core/router.js"
import { screens } from "./screens/registry.js"
import { SignIn } from "./SignIn.js"
import { FailureMessage } from "./ui/feedback.js"

type Session = { readonly state: "checking" } | { readonly state: "signedOut" } | {
  readonly state: "signedIn"
  readonly user: User | null
}

export const App = () => {
  const [session, setSession] = useState<Session>({ state: "checking" })

  useEffect(() => {
    void call((api) => api.auth.me()).then((outcome) =>
      setSession(outcome.ok ? { state: "signedIn", user: outcome.value.user } : { state: "signedOut" })
    )
    return onSignedOut(() => setSession({ state: "signedOut" }))
  }, [])

  switch (session.state) {
    case "checking":
      return (
        <main id="main" class="loading">
          <p aria-busy="true">Loading the dashboard…</p>
        </main>
      )
    case "signedOut":
      return <SignIn onSignedIn={(user) => setSession({ state: "signedIn", user })} />
    case "signedIn":
      return <Dashboard user={session.user} onSignOut={() => setSession({ state: "signedOut" })} />
  }
}

const Dashboard = (props: { readonly user: User | null; readonly onSignOut: () => void }) => {
  const route = useRoute()
  const screen = screens.find((candidate) => candidate.path === route) ?? screens[0]!
  const main = useRef<HTMLElement>(null)
  const [signingOut, setSigningOut] = useState(false)
  const [signOutFailure, setSignOutFailure] = useState<Failure | null>(null)

  // Set in the same commit as the heading, so nothing (a screen reader, a test) reads the new
  // heading under the old title.
  useLayoutEffect(() => {
    document.title = `${screen.title} · Status admin`
  }, [screen])

  const signOut = async () => {
    setSigningOut(true)
    const outcome = await call((api) => api.auth.signOut())
    setSigningOut(false)
    // Only a session the server has ended counts as signed out (a 401 already means that).
    if (outcome.ok) props.onSignOut()
    else setSignOutFailure(outcome.failure)
  }

  return (
    <>
      <a
        class="skip-link"
        href="#main"
        onClick={(event) => {
          event.preventDefault()
          main.current?.focus()
        }}
      >
        Skip to content
      </a>
      <header class="top">
        <p class="brand">Status admin</p>
        <nav aria-label="Main">
          <ul>
            {screens.map((candidate) => (
              <li key={candidate.path}>
                <a href={href(candidate.path)} aria-current={candidate === screen ? "page" : undefined}>
                  {candidate.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="account">
          {props.user && <span class="muted">{props.user.email}</span>}
          <button type="button" onClick={signOut} disabled={signingOut}>Sign out</button>
        </div>
        <FailureMessage failure={signOutFailure} />
      </header>
      <main id="main" ref={main} tabIndex={-1}>
        <screen.View key={screen.path} />
      </main>
    </>
  )
}
