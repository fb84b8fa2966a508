"""Sends the tasks of celery_app.py: 200 record tasks, one flaky task, one ETA task."""
import datetime
import sys
import time

from celery_app import at_eta, flaky, record

count = int(sys.argv[1])
for n in range(count):
    record.delay(n)
flaky.delay()
sent = time.time()
at_eta.apply_async((sent,), eta=datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=3))
print('%.3f' % sent)
