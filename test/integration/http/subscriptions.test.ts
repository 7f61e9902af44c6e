/**
 * Subscriptions over HTTP: an account adds, lists and removes its delivery channels, signed by
 * its key (EIP-712 in this deployment's domain, through ethers, independently of src/domain) or
 * with the server's API key; nobody else can, a signed request works once, and a refused request
 * writes nothing. No notices are made for these accounts: the only mail sent is the e-mail
 * verification's.
 */
import { createECDH, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { hexlify, randomBytes, Wallet, type HDNodeWallet } from 'ethers';
import webpush from 'web-push';
import {
  startSmtpReceiver,
  startTelegramReceiver,
  startWebhookReceiver,
  type SmtpReceiver,
  type TelegramReceiver,
} from '../../support/receivers.js';
import { documentedHttp } from '../../support/openapi.js';
import { http, startTestService, type TestService } from '../../support/service.js';
import { SUBSCRIPTION_TYPES } from '../../support/subscription-types.js';
import { waitFor } from '../../support/wait.js';

interface Domain {
  name: string;
  version: string;
  salt: string;
}

type Channel =
  | { kind: 'webhook'; url: string }
  | { kind: 'email'; address: string }
  | {
      kind: 'webpush';
      subscription: { endpoint: string; keys: { p256dh: string; auth: string } };
    }
  | { kind: 'telegram'; chatId: string };

interface Subscription {
  id: string;
  account: string;
  channel: Record<string, unknown> & { kind: string };
  addedAt: string;
  verification: { status: string; method: string; code?: string };
}

interface ErrorBody {
  errorType: string;
  description: string;
}

const now = () => Math.floor(Date.now() / 1000);

function target(channel: Channel): string {
  switch (channel.kind) {
    case 'webhook':
      return channel.url;
    case 'email':
      return channel.address;
    case 'webpush':
      return channel.subscription.endpoint;
    case 'telegram':
      return channel.chatId;
  }
}

/** What the account signs of a channel: the whole of it, a push subscription's keys included. */
function signed(channel: Channel) {
  const keys = channel.kind === 'webpush' ? channel.subscription.keys : { p256dh: '', auth: '' };
  return { channel: channel.kind, target: target(channel), ...keys };
}

const ANY_ACCOUNT = '0x0000000000000000000000000000000000000001';
const domains = new Map<string, Promise<Domain>>();
/** The domain a service publishes for its requests. */
function domainOf(base: string): Promise<Domain> {
  let domain = domains.get(base);
  if (!domain) {
    domain = documentedHttp<{ domain: Domain }>(
      'GET',
      `${base}/accounts/${ANY_ACCOUNT}/subscriptions/typed-data`,
    ).then((r) => r.body.domain);
    domains.set(base, domain);
  }
  return domain;
}

function pushChannel(endpoint: string): Channel {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return {
    kind: 'webpush',
    subscription: {
      endpoint,
      keys: {
        p256dh: ecdh.getPublicKey().toString('base64url'),
        auth: Buffer.alloc(16, 9).toString('base64url'),
      },
    },
  };
}

const HOOK = { kind: 'webhook', url: 'https://hooks.example.com/batchbook?token=1' } as const;

const CHANNELS: Channel[] = [
  HOOK,
  { kind: 'email', address: 'alice@example.com' },
  pushChannel('https://push.example.com/send/abc'),
  { kind: 'telegram', chatId: '-1001234567890' },
];

/** The account of `signer` (default: `wallet`), or another account's path. */
class Client {
  constructor(
    private readonly base: string,
    readonly wallet: HDNodeWallet,
  ) {}

  get account(): string {
    return this.wallet.address.toLowerCase();
  }

  path(account = this.account): string {
    return `${this.base}/accounts/${account}/subscriptions`;
  }

  async sign(
    type: string,
    fields: Record<string, unknown>,
    issuedAt = now(),
    signer = this.wallet,
    domain?: Domain,
  ) {
    return signer.signTypedData(domain ?? (await domainOf(this.base)), SUBSCRIPTION_TYPES[type]!, {
      account: this.wallet.address,
      ...fields,
      issuedAt,
    });
  }

  /** A signed POST body adding `channel`. */
  async addition(channel: Channel, issuedAt = now(), signer = this.wallet) {
    return {
      channel,
      issuedAt,
      signature: await this.sign('subscribe', signed(channel), issuedAt, signer),
    };
  }

  async add(channel: Channel, options: { issuedAt?: number; signer?: HDNodeWallet } = {}) {
    const body = await this.addition(channel, options.issuedAt, options.signer);
    return documentedHttp<Subscription & ErrorBody>('POST', this.path(), body);
  }

  async list(options: { signer?: HDNodeWallet; issuedAt?: number; sentAt?: number } = {}) {
    const issuedAt = options.issuedAt ?? now();
    const signature = await this.sign('list', {}, issuedAt, options.signer);
    return documentedHttp<Subscription[] & ErrorBody>('GET', this.path(), undefined, {
      'x-signature': signature,
      'x-issued-at': String(options.sentAt ?? issuedAt),
    });
  }

  async remove(
    id: string,
    options: { signer?: HDNodeWallet; in?: 'body' | 'headers'; issuedAt?: number } = {},
  ) {
    const issuedAt = options.issuedAt ?? now();
    const signature = await this.sign('unsubscribe', { id }, issuedAt, options.signer);
    const url = `${this.path()}/${id}`;
    return options.in === 'headers'
      ? documentedHttp<ErrorBody>('DELETE', url, undefined, {
          'x-signature': signature,
          'x-issued-at': String(issuedAt),
        })
      : documentedHttp<ErrorBody>('DELETE', url, { signature, issuedAt });
  }
}

describe('HTTP: subscriptions', () => {
  let service: TestService;
  const client = () => new Client(service.url, Wallet.createRandom());
  const withKey = (key = 'test-key') => ({ 'x-api-key': key });
  const stream = (account: string) => service.ledger.readStream(`subscriptions-${account}`);

  let smtp: SmtpReceiver;
  let telegram: TelegramReceiver;

  before(async () => {
    const vapid = webpush.generateVAPIDKeys();
    [smtp, telegram] = await Promise.all([startSmtpReceiver(), startTelegramReceiver()]);
    service = await startTestService({
      env: {
        NOTIFICATIONS_API_KEY: 'test-key',
        SMTP_URL: smtp.url,
        DELIVERY_POLL_INTERVAL_MS: '20',
        TELEGRAM_BOT_TOKEN: 'x',
        TELEGRAM_API_URL: telegram.apiUrl,
        WEB_PUSH_VAPID_PUBLIC_KEY: vapid.publicKey,
        WEB_PUSH_VAPID_PRIVATE_KEY: vapid.privateKey,
        WEB_PUSH_SUBJECT: 'mailto:ops@example.com',
      },
    });
  });
  after(async () => {
    await service.stop();
    await Promise.all([smtp.close(), telegram.close()]);
  });

  it('adds each kind of channel signed by the account, and lists them at once', async () => {
    const alice = client();
    const added: Subscription[] = [];
    for (const channel of CHANNELS) {
      const response = await alice.add(channel);
      expect(response.status, channel.kind).to.equal(201);
      const { id, account, addedAt } = response.body;
      expect(id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(account).to.equal(alice.account);
      expect(Date.parse(addedAt)).to.be.closeTo(Date.now(), 60_000);
      expect(response.headers.get('cache-control')).to.equal('no-store');
      added.push(response.body);
    }
    // The webhook's secret: 32 random bytes, shown in this response only.
    expect(added[0]!.channel).to.have.keys(['kind', 'url', 'secret']);
    expect(added[0]!.channel.secret).to.match(/^[0-9a-f]{64}$/);
    expect(added[1]!.channel).to.deep.equal({ kind: 'email', address: 'alice@example.com' });
    const push = CHANNELS[2] as Extract<Channel, { kind: 'webpush' }>;
    expect(added[2]!.channel).to.deep.equal({ kind: 'webpush', ...push.subscription });
    expect(added[3]!.channel).to.deep.equal(CHANNELS[3]);
    // Each destination but the browser's must show it wants the notices; the account is given
    // the code its Telegram chat is to send the bot.
    expect(added.map((a) => a.verification)).to.deep.equal([
      { status: 'pending', method: 'webhookChallenge' },
      { status: 'pending', method: 'emailCode' },
      { status: 'verified', method: 'pushSubscription' },
      { status: 'pending', method: 'telegramCode', code: added[3]!.verification.code },
    ]);
    expect(added[3]!.verification.code).to.match(/^[0-9A-HJKMNP-TV-Z]{16}$/);

    const listed = await alice.list();
    expect(listed.status).to.equal(200);
    expect(listed.body).to.deep.equal([
      { ...added[0]!, channel: { kind: 'webhook', url: HOOK.url } },
      added[1],
      { ...added[2]!, channel: { kind: 'webpush', endpoint: push.subscription.endpoint } },
      added[3],
    ]);
    expect(listed.text).not.to.include(added[0]!.channel.secret as string);

    const events = await stream(alice.account);
    expect(events.map((e) => e.type)).to.deep.equal(Array(4).fill('SubscriptionAdded'));
    expect(events.map((e) => (e.data as { authorisedBy: string }).authorisedBy)).to.deep.equal(
      Array(4).fill('signature'),
    );
    // The secret is in the ledger, for delivery to sign with.
    expect((events[0]!.data as { channel: { secret: string } }).channel.secret).to.equal(
      added[0]!.channel.secret,
    );
  });

  it('adds, lists and removes with the server’s API key, without a signature', async () => {
    const bob = client();
    const added = await documentedHttp<Subscription>(
      'POST',
      bob.path(),
      { channel: { kind: 'telegram', chatId: '@batchbook_bob' } },
      withKey(),
    );
    expect(added.status).to.equal(201);
    const listed = await documentedHttp<Subscription[]>('GET', bob.path(), undefined, withKey());
    expect(listed.status).to.equal(200);
    expect(listed.body.map((s) => s.id)).to.deep.equal([added.body.id]);
    const removed = await documentedHttp(
      'DELETE',
      `${bob.path()}/${added.body.id}`,
      undefined,
      withKey(),
    );
    expect(removed.status).to.equal(200);
    expect(removed.body).to.deep.include({ id: added.body.id, account: bob.account });
    const after = await documentedHttp<Subscription[]>('GET', bob.path(), undefined, withKey());
    expect(after.body).to.deep.equal([]);
    const events = await stream(bob.account);
    expect(events.map((e) => [e.type, (e.data as { authorisedBy: string }).authorisedBy])).to.eql([
      ['SubscriptionAdded', 'apiKey'],
      ['SubscriptionRemoved', 'apiKey'],
    ]);
  });

  it('answers the same channel again with the existing subscription (200, no secret)', async () => {
    const carol = client();
    const issuedAt = now();
    const first = await carol.add(CHANNELS[0]!, { issuedAt });
    expect(first.status).to.equal(201);
    // Signed anew (the same request signed for the same second is that request again).
    const again = await carol.add(CHANNELS[0]!, { issuedAt: issuedAt - 1 });
    expect(again.status).to.equal(200);
    expect(again.body).to.deep.equal({
      ...first.body,
      channel: { kind: 'webhook', url: HOOK.url },
    });
    const mail = await carol.add({ kind: 'email', address: 'Carol@Example.com' });
    const mailAgain = await carol.add({ kind: 'email', address: 'carol@example.com' });
    expect([mail.status, mailAgain.status]).to.deep.equal([201, 200]);
    expect(mailAgain.body.id).to.equal(mail.body.id);
    expect(await stream(carol.account)).to.have.length(2);
  });

  it('removes a subscription signed in the body or in the headers; then it is gone', async () => {
    const dave = client();
    const issuedAt = now();
    const hook = (await dave.add(CHANNELS[0]!, { issuedAt })).body;
    const chat = (await dave.add(CHANNELS[3]!, { issuedAt })).body;
    const removed = await dave.remove(hook.id, { issuedAt });
    expect(removed.status).to.equal(200);
    expect(removed.body).to.have.keys(['id', 'account', 'removedAt']);
    expect((await dave.list()).body.map((s) => s.id)).to.deep.equal([chat.id]);
    expect((await dave.remove(chat.id, { in: 'headers' })).status).to.equal(200);
    expect((await dave.list()).body).to.deep.equal([]);

    // Signed anew: the same signed removal again would be refused as used.
    const again = await dave.remove(hook.id, { issuedAt: issuedAt - 1 });
    expect(again.status).to.equal(404);
    expect(again.body.errorType).to.equal('SubscriptionNotFound');
    const unknown = await dave.remove('00000000-0000-4000-8000-000000000000');
    expect(unknown.status).to.equal(404);
    // Removed, it can be added again: a new subscription with a new secret.
    const back = await dave.add(CHANNELS[0]!, { issuedAt: issuedAt - 1 });
    expect(back.status).to.equal(201);
    expect(back.body.id).not.to.equal(hook.id);
    expect(back.body.channel.secret).not.to.equal(hook.channel.secret);
  });

  it('lets no other account add, list or remove, and writes nothing for it', async () => {
    const erin = client();
    const mallory = client();
    const hook = (await erin.add(CHANNELS[0]!)).body;
    const before = await stream(erin.account);

    const refusals = [
      await erin.add(CHANNELS[1]!, { signer: mallory.wallet }),
      await erin.list({ signer: mallory.wallet }),
      await erin.remove(hook.id, { signer: mallory.wallet }),
      await erin.remove(hook.id, { signer: mallory.wallet, in: 'headers' }),
    ];
    for (const response of refusals) {
      expect(response.status).to.equal(401);
      expect((response.body as ErrorBody).errorType).to.equal('Unauthorized');
      expect((response.body as ErrorBody).description).to.include(mallory.account);
    }
    // Mallory's own signature on her own path does not reach Erin's subscription either.
    const viaOwnPath = await mallory.remove(hook.id);
    expect(viaOwnPath.status).to.equal(404);
    expect(await stream(erin.account)).to.deep.equal(before);
    expect(await stream(mallory.account)).to.deep.equal([]);
    expect((await erin.list()).body.map((s) => s.id)).to.deep.equal([hook.id]);
  });

  it('refuses missing credentials, a wrong API key and a bad or stale issuedAt', async () => {
    const frank = client();
    const cases = [
      await documentedHttp<ErrorBody>('POST', frank.path(), { channel: CHANNELS[3] }),
      await documentedHttp<ErrorBody>('GET', frank.path()),
      await documentedHttp<ErrorBody>(
        'POST',
        frank.path(),
        { channel: CHANNELS[3] },
        withKey('wrong'),
      ),
      await documentedHttp<ErrorBody>('GET', frank.path(), undefined, withKey('TEST-KEY')),
      await frank.add(CHANNELS[3]!, { issuedAt: now() - 600 }),
      await frank.add(CHANNELS[3]!, { issuedAt: now() + 600 }),
      // Signed for one time, sent with another.
      await frank.list({ issuedAt: now(), sentAt: now() - 1 }),
    ];
    const signedWithoutTime = await documentedHttp<ErrorBody>('POST', frank.path(), {
      channel: CHANNELS[3],
      signature: await frank.sign('subscribe', signed(CHANNELS[3]!)),
    });
    for (const response of [...cases, signedWithoutTime]) {
      expect(response.status, response.text).to.equal(401);
      expect(response.body.errorType).to.equal('Unauthorized');
    }
    expect(cases[4]!.body.description).to.include('seconds');
    expect(await stream(frank.account)).to.deep.equal([]);
  });

  it('refuses malformed requests with 400, writing nothing', async () => {
    const grace = client();
    const good = { kind: 'telegram', chatId: '42' };
    const bodies: unknown[] = [
      {},
      { channel: { kind: 'sms', number: '1' } },
      { channel: { kind: 'webhook' } },
      { channel: { kind: 'webhook', url: 'ftp://example.com/x' } },
      { channel: { kind: 'webhook', url: 'https://x.example', secret: 'mine' } },
      { channel: { kind: 'email', address: 'not-an-address' } },
      { channel: pushChannel('http://push.example.com/insecure') },
      { channel: { kind: 'webpush', subscription: { endpoint: 'https://p.example' } } },
      { channel: { kind: 'telegram', chatId: 42 } },
      { channel: { kind: 'telegram', chatId: 'chat' } },
      { channel: good, issuedAt: '1700000000' },
      { channel: good, signature: '0x1234' },
      { channel: good, extra: true },
    ];
    for (const body of bodies) {
      const response = await documentedHttp<ErrorBody>('POST', grace.path(), body, withKey());
      expect(response.status, JSON.stringify(body)).to.equal(400);
      expect(response.body.errorType, JSON.stringify(body)).to.equal('InvalidParameter');
    }
    const badAccount = await documentedHttp<ErrorBody>(
      'POST',
      grace.path('0x1234'),
      { channel: good },
      withKey(),
    );
    expect(badAccount.status).to.equal(400);
    const badHeader = await documentedHttp<ErrorBody>('GET', grace.path(), undefined, {
      'x-signature': '0x12',
      'x-issued-at': String(now()),
    });
    expect(badHeader.status).to.equal(400);
    const badTime = await documentedHttp<ErrorBody>('GET', grace.path(), undefined, {
      'x-signature': `0x${'11'.repeat(65)}`,
      'x-issued-at': 'soon',
    });
    expect(badTime.status).to.equal(400);
    const notJson = await fetch(grace.path(), { method: 'POST', body: 'x', headers: withKey() });
    expect(notJson.status).to.equal(415);
    expect(await stream(grace.account)).to.deep.equal([]);
  });

  it('holds at most 20 active subscriptions per account', async () => {
    const heidi = client();
    for (let i = 0; i < 20; i++) {
      const response = await documentedHttp(
        'POST',
        heidi.path(),
        {
          channel: { kind: 'telegram', chatId: String(1000 + i) },
        },
        withKey(),
      );
      expect(response.status).to.equal(201);
    }
    const full = await documentedHttp<ErrorBody>(
      'POST',
      heidi.path(),
      { channel: { kind: 'telegram', chatId: '2000' } },
      withKey(),
    );
    expect(full.status).to.equal(400);
    expect(full.body.errorType).to.equal('TooManySubscriptions');
    // One it already has is still answered, and removing one makes room.
    const existing = await documentedHttp<Subscription>(
      'POST',
      heidi.path(),
      { channel: { kind: 'telegram', chatId: '1000' } },
      withKey(),
    );
    expect(existing.status).to.equal(200);
    await documentedHttp('DELETE', `${heidi.path()}/${existing.body.id}`, undefined, withKey());
    const room = await documentedHttp(
      'POST',
      heidi.path(),
      { channel: { kind: 'telegram', chatId: '2000' } },
      withKey(),
    );
    expect(room.status).to.equal(201);
  });

  it('decides concurrent requests of one account against its stream, one at a time', async () => {
    const olga = client();
    const chat = (i: number) => ({ channel: { kind: 'telegram', chatId: String(500 + i) } });
    const [same, distinct] = await Promise.all([
      Promise.all(
        Array.from({ length: 4 }, () =>
          documentedHttp<Subscription>('POST', olga.path(), chat(0), withKey()),
        ),
      ),
      Promise.all(
        Array.from({ length: 4 }, (_, i) =>
          documentedHttp<Subscription>('POST', olga.path(), chat(i + 1), withKey()),
        ),
      ),
    ]);
    expect(same.map((r) => r.status).sort()).to.deep.equal([200, 200, 200, 201]);
    expect(new Set(same.map((r) => r.body.id)).size).to.equal(1);
    expect(distinct.map((r) => r.status)).to.deep.equal([201, 201, 201, 201]);
    const events = await stream(olga.account);
    expect(events.map((e) => e.revision)).to.deep.equal([0n, 1n, 2n, 3n, 4n]);
    const listed = await documentedHttp<Subscription[]>('GET', olga.path(), undefined, withKey());
    expect(listed.body).to.have.length(5);
  });

  it('publishes what requests are signed with: this deployment’s domain and the structs', async () => {
    const response = await documentedHttp<{
      domain: Domain;
      types: typeof SUBSCRIPTION_TYPES.subscribe;
    }>('GET', `${service.url}/accounts/${ANY_ACCOUNT}/subscriptions/typed-data`);
    expect(response.status).to.equal(200);
    expect(response.headers.get('cache-control')).to.equal('no-store');
    const [identified] = await service.ledger.readStream('deployment');
    const { deploymentId } = identified!.data as { deploymentId: string };
    expect(deploymentId).to.match(/^0x[0-9a-f]{64}$/);
    expect(response.body.domain).to.deep.equal({
      name: 'batchbook notifications',
      version: '2',
      salt: deploymentId,
    });
    for (const type of Object.values(SUBSCRIPTION_TYPES))
      expect(response.body.types).to.deep.include(type);
    // Another instance of this deployment (the same ledger) signs in the same domain.
    const twin = await startTestService({
      databaseUrl: service.databaseUrl,
      env: { NOTIFICATIONS_API_KEY: 'test-key' },
    });
    try {
      expect(await domainOf(twin.url)).to.deep.equal(response.body.domain);
    } finally {
      await twin.stop();
    }
  });

  it('takes a signed request once: replayed, even after the channel was removed, it is refused', async () => {
    const mia = client();
    const addition = await mia.addition(HOOK);
    const first = await documentedHttp<Subscription>('POST', mia.path(), addition);
    expect(first.status).to.equal(201);
    const issuedAt = now();
    const removal = {
      issuedAt,
      signature: await mia.sign('unsubscribe', { id: first.body.id }, issuedAt),
    };
    const member = `${mia.path()}/${first.body.id}`;
    expect((await documentedHttp('DELETE', member, removal)).status).to.equal(200);
    const before = await stream(mia.account);

    // Within its window, the same signed body again: no new secret for whoever replays it.
    const replayed = await documentedHttp<ErrorBody>('POST', mia.path(), addition);
    expect(replayed.status, replayed.text).to.equal(401);
    expect(replayed.body.errorType).to.equal('Unauthorized');
    expect(replayed.body.description).to.match(/used already/);
    const removedAgain = await documentedHttp<ErrorBody>('DELETE', member, removal);
    expect(removedAgain.status).to.equal(401);
    expect(await stream(mia.account)).to.deep.equal(before);
    // Signed anew, the account adds it again.
    expect((await mia.add(HOOK, { issuedAt: addition.issuedAt - 1 })).status).to.equal(201);
  });

  it('refuses a request signed for another deployment, writing nothing', async () => {
    const nora = client();
    const elsewhere = { ...(await domainOf(service.url)), salt: hexlify(randomBytes(32)) };
    const issuedAt = now();
    const signature = await nora.sign('subscribe', signed(HOOK), issuedAt, nora.wallet, elsewhere);
    const response = await documentedHttp<ErrorBody>('POST', nora.path(), {
      channel: HOOK,
      issuedAt,
      signature,
    });
    expect(response.status).to.equal(401);
    expect(await stream(nora.account)).to.deep.equal([]);
  });

  it('signs the whole push subscription: other keys under its signature are refused', async () => {
    const omar = client();
    const mine = pushChannel('https://push.example.com/send/omar') as Extract<
      Channel,
      { kind: 'webpush' }
    >;
    const { issuedAt, signature } = await omar.addition(mine);
    const theirs = pushChannel(mine.subscription.endpoint);
    const swapped = await documentedHttp<ErrorBody>('POST', omar.path(), {
      channel: theirs,
      issuedAt,
      signature,
    });
    expect(swapped.status).to.equal(401);
    expect(await stream(omar.account)).to.deep.equal([]);
    expect(
      (await documentedHttp('POST', omar.path(), { channel: mine, issuedAt, signature })).status,
    ).to.equal(201);
  });

  it('verifies an e-mail address by the code mailed to it, and by no other', async () => {
    const pia = client();
    const address = `pia-${randomUUID()}@example.com`;
    const added = await pia.add({ kind: 'email', address });
    expect(added.status).to.equal(201);
    await waitFor(() => smtp.mails.some((m) => m.to.includes(address)), {
      description: 'the verification e-mail',
    });
    const mail = smtp.mails.find((m) => m.to.includes(address))!;
    const code = /\b(?:[0-9A-Z]{4}-){3}[0-9A-Z]{4}\b/.exec(mail.text)![0];
    // Only the mailbox has it.
    expect(added.text).not.to.include(code.replace(/-/g, ''));
    expect((await pia.list()).text).not.to.include(code.replace(/-/g, ''));

    const verification = `${pia.path()}/${added.body.id}/verification`;
    const before = await stream(pia.account);
    const wrong = await documentedHttp<ErrorBody>('POST', verification, {
      code: '0000-0000-0000-0000',
    });
    expect(wrong.status).to.equal(400);
    expect(wrong.body.errorType).to.equal('InvalidVerificationCode');
    expect(await stream(pia.account)).to.deep.equal(before);

    const verified = await documentedHttp<{ id: string; account: string; verifiedAt: string }>(
      'POST',
      verification,
      { code: code.toLowerCase() },
    );
    expect(verified.status, verified.text).to.equal(200);
    expect(verified.body).to.include({ id: added.body.id, account: pia.account });
    const listed = await pia.list();
    expect(listed.body[0]!.verification).to.deep.equal({ status: 'verified', method: 'emailCode' });
    const again = await documentedHttp<{ verifiedAt: string }>('POST', verification, { code });
    expect(again.body.verifiedAt).to.equal(verified.body.verifiedAt);
    const types = (await stream(pia.account)).map((e) => e.type);
    expect(types).to.deep.equal(['SubscriptionAdded', 'SubscriptionVerified']);
  });

  it('answers 405 to other methods on these paths', async () => {
    const ivan = client();
    // A method the document does not describe.
    const response = await http<ErrorBody>('PUT', ivan.path(), {}, withKey());
    expect(response.status).to.equal(405);
    expect(response.body.errorType).to.equal('MethodNotAllowed');
  });

  describe('without delivery channels or an API key', () => {
    let bare: TestService;
    before(async () => {
      bare = await startTestService();
    });
    after(() => bare.stop());

    it('refuses channels it cannot deliver to (400 ChannelNotConfigured), and the header', async () => {
      const judy = new Client(bare.url, Wallet.createRandom());
      for (const channel of CHANNELS.slice(1)) {
        const response = await judy.add(channel);
        expect(response.status, channel.kind).to.equal(400);
        expect(response.body.errorType).to.equal('ChannelNotConfigured');
      }
      expect((await judy.add(CHANNELS[0]!)).status).to.equal(201);
      // No key is configured: no header authorises.
      const keyed = await documentedHttp<ErrorBody>('GET', judy.path(), undefined, withKey());
      expect(keyed.status).to.equal(401);
      expect(keyed.body.errorType).to.equal('Unauthorized');
      expect(await bare.ledger.readStream(`subscriptions-${judy.account}`)).to.have.length(1);
    });
  });

  describe('with private addresses refused (DELIVERY_ALLOW_PRIVATE_HOSTS=false)', () => {
    let strict: TestService;
    before(async () => {
      strict = await startTestService({ env: { DELIVERY_ALLOW_PRIVATE_HOSTS: 'false' } });
    });
    after(() => strict.stop());

    it('refuses a webhook or push endpoint on a private or loopback host (400), writing nothing', async () => {
      const hook = await startWebhookReceiver();
      try {
        const lee = new Client(strict.url, Wallet.createRandom());
        const port = new URL(hook.url).port;
        const channels: Channel[] = [
          { kind: 'webhook', url: hook.url },
          { kind: 'webhook', url: `http://localhost:${port}/hook` },
          { kind: 'webhook', url: `http://[::ffff:127.0.0.1]:${port}/hook` },
          { kind: 'webhook', url: 'http://169.254.169.254/latest/meta-data/' },
          { kind: 'webhook', url: 'https://192.168.1.10/hook' },
          pushChannel(`https://localhost:${port}/push`),
          pushChannel('https://[fd00::5]/push'),
        ];
        for (const channel of channels) {
          const response = await lee.add(channel);
          expect(response.status, target(channel)).to.equal(400);
          expect(response.body.errorType).to.equal('InvalidParameter');
          expect(response.body.description).to.match(/^\/channel\/\S+ must be a public address/);
        }
        expect(await strict.ledger.readStream(`subscriptions-${lee.account}`)).to.deep.equal([]);
        expect(hook.requests).to.deep.equal([]);
        // A name is not resolved here: delivery checks where it points.
        expect((await lee.add(HOOK)).status).to.equal(201);
      } finally {
        await hook.close();
      }
    });
  });

  describe('with notifications disabled', () => {
    let disabled: TestService;
    before(async () => {
      disabled = await startTestService({
        env: { NOTIFICATIONS_ENABLED: 'false', NOTIFICATIONS_API_KEY: 'test-key' },
      });
    });
    after(() => disabled.stop());

    it('answers 503 NotificationsDisabled to every subscription request', async () => {
      const kim = new Client(disabled.url, Wallet.createRandom());
      const responses = [
        await kim.add(CHANNELS[0]!),
        await kim.list(),
        await kim.remove('00000000-0000-4000-8000-000000000000'),
        await documentedHttp<ErrorBody>('POST', kim.path(), { channel: CHANNELS[3] }, withKey()),
      ];
      for (const response of responses) {
        expect(response.status).to.equal(503);
        expect((response.body as ErrorBody).errorType).to.equal('NotificationsDisabled');
      }
      expect(await disabled.ledger.readStream(`subscriptions-${kim.account}`)).to.deep.equal([]);
    });
  });
});
