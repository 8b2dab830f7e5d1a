/**
 * Says when the live connection is lost (what is shown may be out of date; it keeps trying) and
 * when it is back (everything was read again), the latter for a few seconds. Nothing while it
 * is first connecting or simply open. Each message is an alert, announced as it appears; when
 * there is nothing to say there is no element at all, so the screen's own status line stays the
 * page's first.
 */
import { useEffect, useState } from "preact/hooks"

import { useLiveState } from "../core/live.js"

export const backShownFor = 6_000

export const LiveBanner = () => {
  const state = useLiveState()
  const [wasLost, setWasLost] = useState(false)
  const [showBack, setShowBack] = useState(false)

  useEffect(() => {
    if (state === "lost") {
      setWasLost(true)
      setShowBack(false)
    }
    if (state === "open" && wasLost) {
      setWasLost(false)
      setShowBack(true)
      const timer = setTimeout(() => setShowBack(false), backShownFor)
      return () => clearTimeout(timer)
    }
  }, [state])

  if (state === "lost") {
    return (
      <p class="live-banner lost" role="alert">
        Connection lost: changes made elsewhere do not show until it is back. Reconnecting…
      </p>
    )
  }
  return showBack
    ? <p class="live-banner back" role="alert">Connection back: everything shown is current again.</p>
    : null
}
