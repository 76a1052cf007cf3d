/** Where `npm run certs` puts the development PKI, and so the default certificate files of each role. */
import { join } from 'node:path';

export function devPkiFiles(dataDir: string) {
  const dir = join(dataDir, 'certs');
  return {
    dir,
    caCert: join(dir, 'ca.crt'),
    caKey: join(dir, 'ca.key'),
    /** The back-end service's server certificate (CN corebridge-backend; localhost, 127.0.0.1, ::1). */
    backendCert: join(dir, 'backend.crt'),
    backendKey: join(dir, 'backend.key'),
    /** The API instances' client certificate (CN corebridge-api). */
    apiCert: join(dir, 'api.crt'),
    apiKey: join(dir, 'api.key'),
  };
}

/** The certificate name the development API certificate carries, and so the service's default allowlist. */
export const DEV_API_CLIENT_NAME = 'corebridge-api';
export const DEV_BACKEND_NAME = 'corebridge-backend';
/** The development CA's name: production mode refuses any certificate it issued, wherever the file is. */
export const DEV_CA_NAME = 'Corebridge development CA';
