import Link from 'next/link';

const LINKS = [
  { href: '/', label: 'Jobs' },
  { href: '/demo', label: 'Demo' },
];

export function Nav({ current }: { current?: string }) {
  return (
    <nav className="nav" aria-label="Main">
      <div className="brand">
        Weir<small>streaming queries, brought back clean</small>
      </div>
      {LINKS.map((l) => (
        <Link key={l.href} href={l.href} aria-current={current === l.href ? 'page' : undefined}>
          {l.label}
        </Link>
      ))}
      <div className="spacer" />
      <a href="/api/health" className="meta">API health</a>
    </nav>
  );
}
