import { Suspense } from 'react';
import { LoginForm } from '@/components/session/login-form';

export const metadata = { title: 'Sign in · Stowage' };

export default function LoginPage() {
  return (
    <Suspense>
      <LoginForm />
    </Suspense>
  );
}
