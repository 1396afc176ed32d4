// SPDX-License-Identifier: MIT
/*
 * doctor's rseq-restart probe, its verdict (pure, so that a unit test
 * feeds it made-up tallies: tests/unit/test-doctor-rseq.c): from each
 * target's rounds of the control and of each kind of barrier, whether
 * PRIVATE_EXPEDITED_RSEQ aborted the critical sections it found running
 * (doctor-rseq.c measures them).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>

#include "doctor.h"

double doctor_rseq_excess(struct rseq_tally with, struct rseq_tally ctl)
{
	double p, p0;

	if (with.n <= 0 || ctl.n <= 0)
		return NAN;
	p = (double)with.aborted / (double)with.n;
	p0 = (double)ctl.aborted / (double)ctl.n;
	if (p0 >= 1)
		return NAN;
	return (p - p0) / (1 - p0);
}

int doctor_rseq_judge(const struct rseq_target_tally *t, int n, int flag_cpu, double *lowest,
		      char *reason, size_t len)
{
	int affected = -1, unsure = -1, partial = -1, cpu_affected = -1, spill = -1, cpu_unjudged = 0;
	double low = NAN, e, p0, worst_cpu = NAN, worst_spill = NAN, low_ctl = NAN;
	const char *unsure_why = "";

	*lowest = NAN;
	if (n <= 0) {
		snprintf(reason, len, "no target CPU");
		return RES_CANNOT_TELL;
	}
	for (int i = 0; i < n; i++) {
		if (t[i].ctl.n < RSEQ_MIN_ROUNDS || t[i].all.n < RSEQ_MIN_ROUNDS) {
			if (unsure < 0) {
				unsure = i;
				unsure_why = "observed";
			}
			continue;
		}
		p0 = (double)t[i].ctl.aborted / (double)t[i].ctl.n;
		if (p0 > RSEQ_MAX_BACKGROUND || (double)t[i].all.n * (1 - p0) < RSEQ_MIN_INFORMATIVE) {
			if (unsure < 0) {
				unsure = i;
				unsure_why = "busy";
				low_ctl = p0;
			}
			continue;
		}
		e = doctor_rseq_excess(t[i].all, t[i].ctl);
		if (isnan(low) || e < low)
			low = e;
		if (e < RSEQ_MISSED && affected < 0)
			affected = i;
		else if (e < RSEQ_RESTARTS && partial < 0)
			partial = i;
		if (flag_cpu <= 0)
			continue;
		if (t[i].aimed.n < RSEQ_MIN_ROUNDS) {
			cpu_unjudged = 1;
		} else {
			e = doctor_rseq_excess(t[i].aimed, t[i].ctl);
			if (e < RSEQ_MISSED && cpu_affected < 0) {
				cpu_affected = i;
				worst_cpu = e;
			} else if (e < RSEQ_RESTARTS) {
				cpu_unjudged = 1;
			}
		}
		if (t[i].other.n >= RSEQ_MIN_ROUNDS) {
			e = doctor_rseq_excess(t[i].other, t[i].ctl);
			if (e > RSEQ_MISSED && spill < 0) {
				spill = i;
				worst_spill = e;
			}
		}
	}
	*lowest = low;
	if (affected >= 0) {
		snprintf(reason, len,
			 "a PRIVATE_EXPEDITED_RSEQ barrier left the critical section on CPU %d running: %.2f aborts per barrier beyond the background",
			 t[affected].cpu, doctor_rseq_excess(t[affected].all, t[affected].ctl));
		return RES_AFFECTED;
	}
	if (cpu_affected >= 0) {
		snprintf(reason, len,
			 "PRIVATE_EXPEDITED_RSEQ with FLAG_CPU aimed at CPU %d left its critical section running: %.2f aborts per barrier beyond the background",
			 t[cpu_affected].cpu, worst_cpu);
		return RES_AFFECTED;
	}
	if (spill >= 0) {
		snprintf(reason, len,
			 "PRIVATE_EXPEDITED_RSEQ with FLAG_CPU aimed elsewhere restarted the critical section on CPU %d too (%.2f aborts per barrier beyond the background): the flag is not honoured (extra restarts, costly but not incorrect)",
			 t[spill].cpu, worst_spill);
		return RES_AFFECTED;
	}
	if (unsure >= 0) {
		if (!strcmp(unsure_why, "busy"))
			snprintf(reason, len,
				 "the critical section on CPU %d aborted in %.2f of the rounds without a barrier, leaving too few barriers to judge by (%.0f expected to find it running, %d needed): the host is too busy to tell the barrier's aborts from preemption (rerun when it is quiet)",
				 t[unsure].cpu, low_ctl, (double)t[unsure].all.n * (1 - low_ctl), RSEQ_MIN_INFORMATIVE);
		else
			snprintf(reason, len,
				 "the thread on CPU %d was observed running inside its critical section in too few rounds (%ld without a barrier, %ld with; %d needed): it did not get its CPU (rerun when the host is quiet)",
				 t[unsure].cpu, t[unsure].ctl.n, t[unsure].all.n, RSEQ_MIN_ROUNDS);
		return RES_CANNOT_TELL;
	}
	if (partial >= 0) {
		snprintf(reason, len,
			 "PRIVATE_EXPEDITED_RSEQ aborted the critical section on CPU %d in only %.2f of the barriers beyond the background: neither each barrier nor none (rerun when the host is quiet)",
			 t[partial].cpu, doctor_rseq_excess(t[partial].all, t[partial].ctl));
		return RES_CANNOT_TELL;
	}
	snprintf(reason, len,
		 "every PRIVATE_EXPEDITED_RSEQ barrier aborted the critical section on each target CPU (lowest %.2f per barrier beyond the background)%s",
		 low,
		 flag_cpu < 0 ? "; FLAG_CPU not offered" :
		 flag_cpu == 0 ? "; FLAG_CPU not measured" :
		 cpu_unjudged ? "; FLAG_CPU not judged on every target (too few rounds)" :
				"; with FLAG_CPU only the CPU aimed at");
	return RES_OK;
}
