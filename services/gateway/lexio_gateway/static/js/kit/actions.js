// @ts-check
// The action channel of a table screen: one action in flight at a time, its reply (ack,
// refusal, error) handed to the screen, and the tiles an acked move placed kept on screen until
// a view at least as new as the ack shows them on the board (no flicker between the two).

/**
 * @typedef {object} ActionHost what the channel needs from its screen
 * @property {(frame: any, onReply: (frame: any) => void) => string | null} request sends a
 *   request; its id, or null when it could not be sent
 * @property {() => number} seq the seq of the newest frame the screen has
 * @property {() => void} placedShown the tiles of the acked move are on the board now
 * @property {(kind: string) => void} acked the action of this kind was accepted
 * @property {(frame: any) => void} refused the action was refused (frame: the refusal)
 * @property {(frame: any) => void} failed the action failed (frame: the error)
 * @property {() => void} replied after any reply (the screen draws itself again)
 */

export class ActionChannel {
  /** @param {ActionHost} host */
  constructor(host) {
    this.host = host;
    /** @type {string | null} the id of the action in flight */ this.acting = null;
    /** @type {number | null} the seq at which the acked move's tiles are on the board */ this.clearAtSeq = null;
  }

  /** A new table (or none): nothing in flight. */
  reset() {
    this.acting = null;
    this.clearAtSeq = null;
  }

  /** The connection came back: whatever was in flight is over; the view tells the truth. */
  reconnected() {
    this.acting = null;
  }

  /**
   * Send an action, unless one is in flight (``always``: even then, as a resignation is).
   * @param {any} action @param {string} kind @param {{ always?: boolean }} options
   * @returns {boolean} whether it was sent
   */
  send(action, kind, { always = false } = {}) {
    if (this.acting && !always) return false;
    const id = this.host.request({ type: "act", action }, (frame) => this.reply(frame, kind));
    if (!id) return false;
    this.acting = id;
    return true;
  }

  /** @param {any} frame the reply to an act @param {string} kind */
  reply(frame, kind) {
    if (frame.id === this.acting) this.acting = null;
    if (frame.type === "ack") {
      if (kind === "place") {
        if (this.host.seq() >= frame.seq) this.host.placedShown();
        else this.clearAtSeq = frame.seq;
      }
      this.host.acked(kind);
    } else if (frame.type === "refused") {
      this.host.refused(frame);
    } else if (frame.type === "error") {
      this.host.failed(frame);
    }
    this.host.replied();
  }

  /**
   * A view has come at ``seq``: whether it is the one that shows the acked move's tiles (the
   * screen then forgets them as placed).
   * @param {number} seq
   */
  viewShowsAcked(seq) {
    if (this.clearAtSeq === null || seq < this.clearAtSeq) return false;
    this.clearAtSeq = null;
    return true;
  }
}
