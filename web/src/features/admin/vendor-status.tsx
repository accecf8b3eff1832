import { Banner } from '../../components/states';
import { useResource } from '../../lib/use-resource';
import { useApi } from '../auth/auth-context';

/**
 * Vendor notices for admins (a model near or past its end of life, a Google group switched off…). Shows
 * nothing when all is well, so the admin screen stays quiet until something needs a person.
 */
export function VendorStatus() {
  const api = useApi();
  const res = useResource(() => api.vendorStatus(), 'vendor-status');
  const problems = (res.data?.notices ?? []).filter((n) => n.state !== 'ok');
  if (problems.length === 0) return null;
  return (
    <section className="vendor-status" aria-label="Vendor status">
      {problems.map((n) => (
        <Banner key={`${n.vendor}:${n.check}`} kind={n.state === 'error' ? 'error' : 'warn'}>
          {n.message}
        </Banner>
      ))}
    </section>
  );
}
