/**
 * An account: its orders, trades, total surplus and notices, and its delivery subscriptions
 * (webhook and e-mail channels), which only the account itself may see and change: each request
 * is signed in the browser by the connected wallet (EIP-712, the deployment's typed data).
 */
import { useState } from 'preact/hooks';
import {
  api,
  ApiProblem,
  asApiProblem,
  book,
  type Notice,
  type Order,
  type Trade,
} from '../api.js';
import { Loading, Problem, Section } from '../components.js';
import { native, time } from '../format.js';
import { useLiveNotes } from '../live.js';
import { href } from '../routing.js';
import { OrdersTable, TradesTable } from '../tables.js';
import { useApi } from '../use-api.js';
import { useAttempt } from '../use-attempt.js';
import { setWallet, useWallet, type WalletChoice } from '../wallet-choice.js';
import type { TypedRequest } from '../wallet.js';
import { WalletPicker } from '../wallet-picker.js';

interface Subscription {
  id: string;
  channel: { kind: string; url?: string; address?: string; secret?: string };
  verification?: { status: string; method: string };
}

interface TypedData {
  domain: TypedRequest['domain'];
  types: TypedRequest['types'];
}

/** Signs `primaryType` over `message` (with the account and the time added) as the account. */
async function signed(
  choice: WalletChoice,
  account: string,
  primaryType: string,
  message: Record<string, unknown>,
) {
  const [{ connectWallet, signTyped }, typed] = await Promise.all([
    import('../wallet.js'),
    api<TypedData>(`/accounts/${account}/subscriptions/typed-data`),
  ]);
  const wallet = await connectWallet(choice);
  if (wallet.address.toLowerCase() !== account.toLowerCase()) {
    throw new ApiProblem(
      0,
      'WrongWallet',
      `the connected wallet is ${wallet.address}, not this account: connect ${account}`,
    );
  }
  const issuedAt = Math.floor(Date.now() / 1000);
  const signature = await signTyped(wallet, {
    ...typed,
    primaryType,
    message: { account, ...message, issuedAt: BigInt(issuedAt) },
  });
  return { signature, issuedAt };
}

function Subscriptions({ network, account }: { network: string; account: string }) {
  const wallet = useWallet();
  const [list, setList] = useState<Subscription[] | null>(null);
  const [kind, setKind] = useState<'webhook' | 'email'>('webhook');
  const [target, setTarget] = useState('');
  const [added, setAdded] = useState<Subscription | null>(null);
  const attempt = useAttempt(asApiProblem);

  const refresh = async () => {
    const { signature, issuedAt } = await signed(wallet.choice, account, 'ListSubscriptions', {});
    setList(
      await api<Subscription[]>(`/accounts/${account}/subscriptions`, {
        headers: { 'X-Signature': signature, 'X-Issued-At': String(issuedAt) },
      }),
    );
  };
  const add = () =>
    attempt.run(async () => {
      const channel = kind === 'webhook' ? { kind, url: target } : { kind, address: target };
      const { signature, issuedAt } = await signed(wallet.choice, account, 'Subscribe', {
        channel: kind,
        target,
        p256dh: '',
        auth: '',
      });
      const subscription = await api<Subscription>(`/accounts/${account}/subscriptions`, {
        method: 'POST',
        body: JSON.stringify({ channel, issuedAt, signature }),
      });
      setAdded(subscription);
      setTarget('');
      await refresh();
    });
  const remove = (id: string) =>
    attempt.run(async () => {
      const { signature, issuedAt } = await signed(wallet.choice, account, 'Unsubscribe', { id });
      await api(`/accounts/${account}/subscriptions/${encodeURIComponent(id)}`, {
        method: 'DELETE',
        body: JSON.stringify({ signature, issuedAt }),
      });
      await refresh();
    });

  return (
    <Section title="Delivery subscriptions">
      <p class="muted">
        Notices can be delivered to a webhook or an e-mail address. Each change, and the list, is
        signed by this account in your wallet.
      </p>
      <WalletPicker network={network} />
      <form
        class="row"
        onSubmit={(event) => {
          event.preventDefault();
          void add();
        }}
      >
        <label>
          Channel{' '}
          <select
            value={kind}
            onChange={(e) => setKind((e.target as HTMLSelectElement).value as 'webhook' | 'email')}
          >
            <option value="webhook">webhook</option>
            <option value="email">e-mail</option>
          </select>
        </label>
        <label class="grow">
          {kind === 'webhook' ? 'Webhook URL' : 'E-mail address'}{' '}
          {kind === 'webhook' ? (
            <input
              required
              type="url"
              value={target}
              onInput={(e) => setTarget((e.target as HTMLInputElement).value)}
            />
          ) : (
            <input
              required
              type="email"
              value={target}
              onInput={(e) => setTarget((e.target as HTMLInputElement).value)}
            />
          )}
        </label>
        <button type="submit" disabled={attempt.busy}>
          Sign and add
        </button>
        <button type="button" disabled={attempt.busy} onClick={() => void attempt.run(refresh)}>
          Sign and list
        </button>
      </form>
      <Problem problem={attempt.problem} />
      {added ? (
        <p role="status" class="ok">
          Added {added.channel.kind} subscription <span class="mono">{added.id}</span>
          {added.channel.secret ? (
            <>
              ; its signing secret (shown once): <code>{added.channel.secret}</code>
            </>
          ) : null}
          . It receives notices once its destination answers the verification.
        </p>
      ) : null}
      {list ? (
        list.length === 0 ? (
          <p>No subscription.</p>
        ) : (
          <ul class="plain subscriptions">
            {list.map((s) => (
              <li key={s.id}>
                {s.channel.kind} <span class="mono wrap">{s.channel.url ?? s.channel.address}</span>{' '}
                · {s.verification?.status ?? 'unknown'}{' '}
                <button type="button" disabled={attempt.busy} onClick={() => void remove(s.id)}>
                  Sign and remove
                </button>
              </li>
            ))}
          </ul>
        )
      ) : null}
    </Section>
  );
}

function AccountChooser({ network }: { network: string }) {
  const wallet = useWallet();
  const [value, setValue] = useState(wallet.address ?? '');
  return (
    <form
      class="row"
      onSubmit={(event) => {
        event.preventDefault();
        location.hash = href(network, 'account', value.trim());
      }}
    >
      <label class="grow">
        Account address{' '}
        <input
          required
          pattern="0x[0-9a-fA-F]{40}"
          value={value}
          onInput={(e) => setValue((e.target as HTMLInputElement).value)}
        />
      </label>
      <button type="submit">Show</button>
      <button
        type="button"
        onClick={() =>
          void import('../wallet.js').then(async ({ connectWallet }) => {
            const connected = await connectWallet(wallet.choice);
            setWallet({ ...wallet, address: connected.address });
            location.hash = href(network, 'account', connected.address);
          })
        }
      >
        My wallet’s account
      </button>
    </form>
  );
}

export function AccountPage({ network, address }: { network: string; address: string | null }) {
  if (!address) {
    return (
      <>
        <h1>Account</h1>
        <AccountChooser network={network} />
      </>
    );
  }
  return <Account network={network} address={address} />;
}

function Account({ network, address }: { network: string; address: string }) {
  const orders = useApi(`orders/${address}`, () =>
    api<Order[]>(`${book(network)}/account/${address}/orders?limit=100`),
  );
  const trades = useApi(`trades/${address}`, () =>
    api<Trade[]>(`/${network}/api/v2/trades?owner=${address}&limit=100`),
  );
  const surplus = useApi(`surplus/${address}`, () =>
    api<{ totalSurplus: string }>(`${book(network)}/users/${address}/total_surplus`),
  );
  const notices = useApi(`notices/${address}`, () =>
    api<Notice[]>(`/accounts/${address}/notifications`),
  );
  const mine = new Set(orders.data?.map((o) => o.uid));
  useLiveNotes((note) => {
    if (
      note.type === 'connected' ||
      (note.uid !== undefined && mine.has(note.uid)) ||
      note.type === 'OrderPlaced'
    ) {
      orders.reload();
      trades.reload();
      surplus.reload();
      notices.reload();
    }
  });
  return (
    <>
      <h1>
        Account <span class="mono wrap">{address}</span>
      </h1>
      <p>
        Total surplus:{' '}
        <strong>{surplus.data ? `${native(surplus.data.totalSurplus)} native` : '…'}</strong>
      </p>
      <Problem problem={surplus.problem} what="Its surplus could not be read" />
      <Section title="Orders">
        <Loading when={orders.loading && !orders.data} />
        <Problem problem={orders.problem} what="Its orders could not be read" />
        {orders.data?.length === 0 ? <p>No order.</p> : null}
        {orders.data && orders.data.length > 0 ? (
          <OrdersTable
            network={network}
            orders={orders.data}
            label="Orders of the account"
            columns={[
              { heading: 'status', cell: (o) => o.status },
              { heading: 'created', cell: (o) => time(o.creationDate) },
            ]}
          />
        ) : null}
      </Section>
      <Section title="Trades">
        <Problem problem={trades.problem} what="Its trades could not be read" />
        {trades.data?.length === 0 ? <p>No trade.</p> : null}
        {trades.data && trades.data.length > 0 ? (
          <TradesTable network={network} trades={trades.data} label="Trades of the account" />
        ) : null}
      </Section>
      <Section title="Notices">
        <Problem problem={notices.problem} what="Its notices could not be read" />
        {notices.data?.length === 0 ? <p>No notice.</p> : null}
        <ul class="plain">
          {notices.data?.map((n) => (
            <li key={n.id}>
              <time dateTime={n.timestamp}>{time(n.timestamp)}</time> · <strong>{n.type}</strong> ·{' '}
              {n.message}
            </li>
          ))}
        </ul>
      </Section>
      <Subscriptions network={network} account={address} />
    </>
  );
}
