/** Small pieces every page uses: problems, links, amounts, loading states. */
import type { ComponentChildren } from 'preact';
import type { ApiProblem } from './api.js';
import { short, units } from './format.js';
import { knownToken } from './networks.js';
import { href } from './routing.js';

export function Problem({ problem, what }: { problem: ApiProblem | null; what?: string }) {
  if (!problem) return null;
  return (
    <div class="problem" role="alert">
      {what ? <span>{what}: </span> : null}
      <strong>{problem.errorType}</strong>
      {problem.description ? ` — ${problem.description}` : null}
    </div>
  );
}

export function Loading({ when }: { when: boolean }) {
  return when ? (
    <p class="muted" aria-live="polite">
      Loading…
    </p>
  ) : null;
}

export function OrderLink({ network, uid }: { network: string; uid: string }) {
  return (
    <a href={href(network, 'order', uid)} class="mono" title={uid}>
      {short(uid)}
    </a>
  );
}

export function AccountLink({ network, address }: { network: string; address: string }) {
  return (
    <a href={href(network, 'account', address)} class="mono" title={address}>
      {short(address)}
    </a>
  );
}

/** An amount in the token's units with its symbol, linked to its page; else in atoms. */
export function TokenAmount({
  network,
  token,
  atoms,
}: {
  network: string;
  token: string;
  atoms: string;
}) {
  const known = knownToken(network, token);
  return (
    <span class="amount">
      {known ? units(atoms, known.decimals) : atoms}{' '}
      <a href={href(network, 'token', token)} title={token}>
        {known ? known.symbol : `atoms of ${short(token)}`}
      </a>
    </span>
  );
}

export function Section({
  title,
  children,
  id,
}: {
  title: string;
  children: ComponentChildren;
  id?: string;
}) {
  return (
    <section aria-labelledby={id ?? slug(title)}>
      <h2 id={id ?? slug(title)}>{title}</h2>
      {children}
    </section>
  );
}

const slug = (text: string) => text.toLowerCase().replace(/[^a-z0-9]+/g, '-');

/** A table that scrolls sideways on a narrow screen instead of widening the page. */
export function Scroll({ children, label }: { children: ComponentChildren; label: string }) {
  return (
    <div class="scroll" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}
