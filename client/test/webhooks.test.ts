/**
 * The client's verifyWebhook() and the official `standardwebhooks` library
 * judge the same messages alike: messages signed by the service's signer
 * (src/webhooks/secrets.ts) and by the library, as sent, tampered with,
 * late, early, during a rotation, and with headers missing or wrong.
 */
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { newSecret, signatures } from "../../src/webhooks/secrets.ts";
import { verifyWebhook, WebhookVerificationError } from "../src/index.ts";

type Message = { headers: Record<string, string>; body: string };

/** What the library says of a message: the event, or its error's message. */
function official(secret: string, m: Message, now: number): unknown {
  const realNow = Date.now;
  Date.now = () => now * 1000;
  try {
    return new Webhook(secret).verify(m.body, m.headers);
  } catch (err) {
    return `error: ${(err as Error).message}`;
  } finally {
    Date.now = realNow;
  }
}

/** What verifyWebhook says of it. */
async function ours(secret: string, m: Message, now: number): Promise<unknown> {
  try {
    return await verifyWebhook(secret, m.headers, m.body, { now: new Date(now * 1000) });
  } catch (err) {
    expect(err).toBeInstanceOf(WebhookVerificationError);
    return `error: ${(err as Error).message}`;
  }
}

describe("verifyWebhook", () => {
  it("agrees with the official library on every message, valid or not", async () => {
    const secret = newSecret();
    const other = newSecret();
    const now = 1_795_000_000;
    const body = JSON.stringify({ type: "filing.terminated", timestamp: "2026-11-20T08:00:00Z", data: { id: "CA-1" } });
    const ours1 = async (id: string, ts: number, text: string, secrets = [secret]) => ({
      headers: {
        "webhook-id": id,
        "webhook-timestamp": String(ts),
        "webhook-signature": await signatures(secrets, id, ts, text),
      },
      body: text,
    });
    const theirs = (id: string, ts: number, text: string): Message => ({
      headers: {
        "webhook-id": id,
        "webhook-timestamp": String(ts),
        "webhook-signature": new Webhook(secret).sign(id, new Date(ts * 1000), text),
      },
      body: text,
    });
    const signed = await ours1("msg_1", now, body);
    const cases: [string, Message, boolean][] = [
      ["signed by the service", signed, true],
      ["signed by the library", theirs("msg_2", now, body), true],
      ["rotation: the old and a new secret", await ours1("msg_3", now, body, [other, secret]), true],
      ["rotation: only another secret", await ours1("msg_4", now, body, [other]), false],
      ["body changed", { ...signed, body: body.replace("CA-1", "CA-2") }, false],
      ["id changed", { ...signed, headers: { ...signed.headers, "webhook-id": "msg_x" } }, false],
      ["timestamp changed", { ...signed, headers: { ...signed.headers, "webhook-timestamp": String(now + 1) } }, false],
      ["six minutes old", await ours1("msg_5", now - 360, body), false],
      ["six minutes ahead", await ours1("msg_6", now + 360, body), false],
      ["four minutes old", await ours1("msg_7", now - 240, body), true],
      ["no signature", { ...signed, headers: { ...signed.headers, "webhook-signature": "" } }, false],
      [
        "another version only",
        {
          ...signed,
          headers: {
            ...signed.headers,
            "webhook-signature": signed.headers["webhook-signature"]!.replace("v1,", "v2,"),
          },
        },
        false,
      ],
      ["timestamp not a number", { ...signed, headers: { ...signed.headers, "webhook-timestamp": "soon" } }, false],
    ];
    for (const [name, message, valid] of cases) {
      const theirVerdict = official(secret, message, now);
      const ourVerdict = await ours(secret, message, now);
      expect(ourVerdict, name).toEqual(theirVerdict);
      expect(typeof ourVerdict === "object", name).toBe(valid);
    }
  });

  it("takes Node's header object, a fetch Headers, and the body as bytes", async () => {
    const secret = newSecret();
    const now = Math.floor(Date.now() / 1000);
    const body = '{"type":"filing.created","timestamp":"2026-11-20T08:00:00Z","data":{"id":"TX-9"}}';
    const signature = await signatures([secret], "msg_9", now, body);
    const node = { "Webhook-Id": "msg_9", "webhook-timestamp": [String(now)], "webhook-signature": signature };
    expect((await verifyWebhook(secret, node, body)).data.id).toBe("TX-9");
    const headers = new Headers({
      "webhook-id": "msg_9",
      "webhook-timestamp": String(now),
      "webhook-signature": signature,
    });
    expect((await verifyWebhook(secret, headers, new TextEncoder().encode(body))).type).toBe("filing.created");
    await expect(verifyWebhook("whsec_%%%", headers, body)).rejects.toThrow(WebhookVerificationError);
  });
});
