import type { ReactNode } from 'react';
import { useMe } from '../features/auth/auth-context';
import { usePane } from '../features/layout/pane';
import { useLiveStatus } from '../lib/live';
import { Link, useLocation } from '../lib/router';
import { BackIcon, InboxIcon, PlusIcon, SettingsIcon, ShieldIcon } from './icons';
import { OfflineNotice } from './offline-notice';

/**
 * The frame of every signed-in screen: a top bar and, on the main screens, a bottom tab bar within thumb
 * reach. The conversation screen swaps the tab bar for its message input.
 */
export function Shell({
  title,
  subtitle,
  back,
  actions,
  tabs = true,
  footer,
  children,
}: {
  title: ReactNode;
  subtitle?: ReactNode;
  back?: string;
  actions?: ReactNode;
  tabs?: boolean;
  footer?: ReactNode;
  children: ReactNode;
}) {
  const live = useLiveStatus();
  // Beside the list (desktop split) the list itself is the way back and holds the tab bar.
  const besideList = usePane() === 'detail';
  const backTo = besideList ? undefined : back;
  const withTabs = tabs && !besideList;
  return (
    <div className={`shell${withTabs ? ' with-tabs' : ''}`} data-live={live}>
      <header className="topbar">
        {backTo && (
          <Link
            href={backTo}
            className="icon-btn"
            aria-label={backTo === '/' ? 'Back to conversations' : 'Back'}
          >
            <BackIcon />
          </Link>
        )}
        <div className="topbar-title">
          <h1>{title}</h1>
          {subtitle && <p>{subtitle}</p>}
        </div>
        {actions && <div className="topbar-actions">{actions}</div>}
      </header>
      {/* Said once: the list beside it already says it. */}
      {!besideList && <OfflineNotice />}
      <main className="content">{children}</main>
      {footer}
      {withTabs && <TabBar />}
    </div>
  );
}

function TabBar() {
  const me = useMe();
  const { path, query } = useLocation();
  const tabs = [
    { href: '/', label: 'Inbox', icon: <InboxIcon />, active: path === '/' },
    { href: '/chat', label: 'New chat', icon: <PlusIcon />, active: path === '/chat' && !query.get('id') },
    ...(me.isAdmin
      ? [{ href: '/admin', label: 'Admin', icon: <ShieldIcon />, active: path === '/admin' }]
      : []),
    { href: '/settings', label: 'Settings', icon: <SettingsIcon />, active: path === '/settings' },
  ];
  return (
    <nav className="tabbar" aria-label="Main">
      {tabs.map((t) => (
        <Link
          key={t.href}
          href={t.href}
          className={`tab${t.active ? ' active' : ''}`}
          aria-current={t.active ? 'page' : undefined}
        >
          {t.icon}
          <span>{t.label}</span>
        </Link>
      ))}
    </nav>
  );
}
