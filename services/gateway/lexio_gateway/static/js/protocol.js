// @ts-check
// The WebSocket's frames (docs/protocol.md) as JSDoc types, for the checker only: no code.
// A module uses them as `import("./protocol.js").ServerFrame`. What a game puts in its view,
// its log entries and its actions is the game's: here they are open objects, which each game's
// package may narrow with typedefs of its own.

// Shapes shared by several frames -------------------------------------------------------

/**
 * A table option's value: a string or an integer (the game's choices).
 * @typedef {string | number} OptionValue
 */

/**
 * The table's options by name, defaults filled in (`{}` for Lexio).
 * @typedef {Record<string, OptionValue>} TableOptions
 */

/**
 * A seat at the table, in arrival order.
 * @typedef {object} Seat
 * @property {string} name      the player's display name
 * @property {boolean} host
 * @property {boolean} connected
 */

/**
 * `open` seating, `started`, `over` once the game ended, `closed` when the lobby closed a
 * table that never started.
 * @typedef {"open" | "started" | "over" | "closed"} TableState
 */

/**
 * The host's new table for the same people, once opened after the end.
 * @typedef {object} RematchOffer
 * @property {string} code
 * @property {string} table_id
 */

/**
 * A player's view of a game (the engine's SeatView as JSON): the game's own shape. The
 * snapshot's carries the whole log; a `view` frame's does not.
 * @typedef {{log?: LogEntry[], ending?: object | null, [field: string]: unknown}} GameView
 */

/**
 * One public entry of a game's log (the game's own shape; every game numbers them).
 * @typedef {{number?: number, kind: string, at?: number, [field: string]: unknown}} LogEntry
 */

/**
 * A game's action (`act`'s `action`): one key, the action's name, e.g. `{"pass_turn": {}}`.
 * @typedef {Record<string, object>} Action
 */

// Client → server -----------------------------------------------------------------------

/**
 * @typedef {object} HelloFrame
 * @property {"hello"} type
 * @property {number} protocol   1
 * @property {string} [token]    a seat's secret: resumes the seat
 * @property {number} [last_seq] the last event number seen
 */

/**
 * @typedef {object} CreateFrame
 * @property {"create"} type
 * @property {string} id
 * @property {string} name          display name
 * @property {string} [game]        default: the gateway's first game
 * @property {TableOptions} [options]
 */

/**
 * @typedef {object} LookupFrame
 * @property {"lookup"} type
 * @property {string} id
 * @property {string} code
 */

/**
 * @typedef {object} JoinFrame
 * @property {"join"} type
 * @property {string} id
 * @property {string} code   any case, dashes and spaces ignored
 * @property {string} name
 */

/**
 * @typedef {object} LeaveFrame   before the start only
 * @property {"leave"} type
 * @property {string} id
 */

/**
 * @typedef {object} StartFrame   host only, enough players seated
 * @property {"start"} type
 * @property {string} id
 */

/**
 * @typedef {object} ActFrame
 * @property {"act"} type
 * @property {string} id
 * @property {Action} action
 */

/**
 * @typedef {object} PreviewFrame   a Lexio `place` only (R25)
 * @property {"preview"} type
 * @property {string} id
 * @property {Action} action
 */

/**
 * @typedef {object} RematchFrame   the host, after the end
 * @property {"rematch"} type
 * @property {string} id
 */

/**
 * @typedef {object} PingFrame
 * @property {"ping"} type
 */

/**
 * @typedef {HelloFrame | CreateFrame | LookupFrame | JoinFrame | LeaveFrame | StartFrame
 *   | ActFrame | PreviewFrame | RematchFrame | PingFrame} ClientFrame
 */

/**
 * A request before its id is chosen (main.js's request() adds a fresh one).
 * @typedef {Omit<CreateFrame, "id"> | Omit<LookupFrame, "id"> | Omit<JoinFrame, "id">
 *   | Omit<LeaveFrame, "id"> | Omit<StartFrame, "id"> | Omit<ActFrame, "id">
 *   | Omit<PreviewFrame, "id"> | Omit<RematchFrame, "id">} Request
 */

// Server → client -----------------------------------------------------------------------

/**
 * @typedef {object} WelcomeFrame
 * @property {"welcome"} type
 * @property {number} protocol
 * @property {number} server_time          Unix seconds
 * @property {Record<string, boolean>} games each game the site offers: can it be played now
 */

/**
 * @typedef {object} SeatedFrame
 * @property {"seated"} type
 * @property {string} id
 * @property {string} token      the seat's only credential: keep it
 * @property {string} table_id
 * @property {string} code
 * @property {string} player     opaque player id
 */

/**
 * Sent again whenever seats or connections change.
 * @typedef {object} TableFrame
 * @property {"table"} type
 * @property {string} table_id
 * @property {string} game
 * @property {string} code             seated players only
 * @property {TableState} state
 * @property {Seat[]} seats
 * @property {number} you              your seat's index
 * @property {number} min_seats
 * @property {number} max_seats
 * @property {TableOptions} options
 * @property {RematchOffer | null} rematch
 */

/**
 * What a code opens, before joining: never a name or an id.
 * @typedef {object} InvitationFrame
 * @property {"invitation"} type
 * @property {string} id
 * @property {string} game
 * @property {TableOptions} options
 * @property {number} seated           how many
 * @property {number} min_seats
 * @property {number} max_seats
 * @property {"open" | "started"} state
 */

/**
 * @typedef {object} SnapshotFrame
 * @property {"snapshot"} type
 * @property {number} seq
 * @property {GameView} view   with the whole log
 */

/**
 * @typedef {object} EventFrame
 * @property {"event"} type
 * @property {number} seq
 * @property {LogEntry} entry
 */

/**
 * @typedef {object} ViewFrame
 * @property {"view"} type
 * @property {number} seq
 * @property {GameView} view   your view after event `seq`, without the log
 */

/**
 * @typedef {object} AckFrame
 * @property {"ack"} type
 * @property {string} id
 * @property {number} seq   the last event the action produced
 */

/**
 * The game's refusal, to the actor only.
 * @typedef {object} RefusedFrame
 * @property {"refused"} type
 * @property {string} id
 * @property {string} reason
 * @property {string[]} [words]          for `unknown_words`
 * @property {number} [reserve_tries]
 * @property {number} [reserve_next_in]
 */

/**
 * @typedef {object} PreviewedWord
 * @property {string} word
 * @property {number} score
 */

/**
 * @typedef {object} PreviewReplyFrame
 * @property {"preview"} type
 * @property {string} id
 * @property {boolean} well_formed
 * @property {string} [reason]
 * @property {PreviewedWord[]} words
 * @property {number} score
 * @property {boolean} bingo
 */

/**
 * @typedef {object} LeftFrame
 * @property {"left"} type
 * @property {string} id
 */

/**
 * The host opened a new table for the same people.
 * @typedef {object} RematchOfferFrame
 * @property {"rematch"} type
 * @property {string} code
 * @property {string} table_id
 * @property {string} host   the host's name
 */

/**
 * A stable code with its parameters (docs/protocol.md, "Error codes"), never prose.
 * @typedef {object} ErrorFrame
 * @property {"error"} type
 * @property {string} [id]
 * @property {string} code
 * @property {number} [retry_after]   rate_limited: whole seconds to wait; unavailable: seconds before trying again
 * @property {string} [reason]        bad_json: "number" or "text"
 * @property {string} [field]         bad_frame
 * @property {string} [got]           unknown_type
 * @property {number} [supported]     protocol_version
 */

/**
 * The same seat connected from another tab: this connection is closed (4001).
 * @typedef {object} ReplacedFrame
 * @property {"replaced"} type
 */

/**
 * @typedef {object} ReconnectFrame
 * @property {"reconnect"} type
 * @property {"shutdown" | "busy"} reason
 * @property {number} [retry_after]  busy: seconds before the next try
 */

/**
 * @typedef {object} PongFrame
 * @property {"pong"} type
 */

/**
 * @typedef {WelcomeFrame | SeatedFrame | TableFrame | InvitationFrame | SnapshotFrame
 *   | EventFrame | ViewFrame | AckFrame | RefusedFrame | PreviewReplyFrame | LeftFrame
 *   | RematchOfferFrame | ErrorFrame | ReplacedFrame | ReconnectFrame | PongFrame} ServerFrame
 */

/**
 * The answer to a request with an id (what main.js's request() hands its callback).
 * @typedef {SeatedFrame | InvitationFrame | AckFrame | RefusedFrame | PreviewReplyFrame
 *   | LeftFrame | ErrorFrame} Reply
 */

// HTTP: a finished game's review (docs/protocol.md, issue 26) -----------------------------

/**
 * `GET /api/tables/{table_id}/review` with the seat's token (`Authorization: Bearer …`): a
 * finished game as that seat may see it. `steps[0]` is the seat's view at the start,
 * `steps[i]` its view after `entries[i - 1]` (each without its log), so there is one step more
 * than entries. Nothing in it is more than that seat saw during play: its own rack, the others'
 * as counts until the end's reveal, exchanges as counts.
 * @typedef {object} Review
 * @property {string} game
 * @property {string} table_id
 * @property {number} seat              the viewer's seat
 * @property {string[]} players         names in seat order
 * @property {number | string} ended_at  the end (Unix seconds, or an ISO 8601 instant)
 * @property {number | string} expires_at when the record goes (same)
 * @property {string} record_format     the record's format, "<game>-record/1"
 * @property {string} filename          ASCII, what the download is saved as
 * @property {object} record            the record document for that seat
 * @property {LogEntry[]} entries       the public log, as `event` frames carry it
 * @property {GameView[]} steps         the seat's view at the start and after each entry
 */

/**
 * The review's (and the record's) refusal: a stable code, nothing else. 401 `missing_token`,
 * 403 `bad_token` (unknown, or another table's), 409 `game_not_over`, 410 `record_expired`,
 * 404 `review_unavailable`, 503 `unavailable`.
 * @typedef {{error: string}} ReviewError
 */

export {};
