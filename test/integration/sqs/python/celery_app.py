"""A Celery app on relayq's SQS endpoint, as a Celery user on Debian 12 writes it.

Used by test/integration/sqs/celery.test.ts with Debian's python3-celery (5.2),
python3-kombu, python3-boto3 and python3-pycurl. Every task run leaves a file in
RUNS_DIR, so the test counts executions.
Environment: BROKER_URL (sqs://<key>:<url-encoded secret>@127.0.0.1:<port>), RUNS_DIR.
"""
import os
import time
import uuid

from celery import Celery

app = Celery('relayq_e2e', broker=os.environ['BROKER_URL'])
app.conf.update(
    broker_transport_options={
        'region': 'us-east-1',
        # long polls of 1 s and a visibility timeout far above any task's duration
        'wait_time_seconds': 1,
        'polling_interval': 0.1,
        'visibility_timeout': 120,
    },
    broker_connection_retry_on_startup=True,
    task_acks_late=True,
    worker_prefetch_multiplier=10,
    result_backend=None,
    task_ignore_result=True,
)

RUNS_DIR = os.environ['RUNS_DIR']


def note(name):
    with open(os.path.join(RUNS_DIR, '%s.%s' % (name, uuid.uuid4().hex)), 'w') as f:
        f.write('%.3f' % time.time())


@app.task
def record(n):
    note('record-%d' % n)


@app.task(bind=True, max_retries=3)
def flaky(self):
    note('flaky-try')
    if self.request.retries < 2:
        raise self.retry(countdown=1)
    note('flaky-done')


@app.task
def at_eta(sent_at):
    note('eta')
