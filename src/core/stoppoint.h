/* Named stop points: crash-safety tests stop the process at an exact moment
 * instead of sleeping. */
#ifndef VMB_STOPPOINT_H
#define VMB_STOPPOINT_H

/* When VMBENCH_TEST_STOP_AT names this point, the process stops itself
 * (SIGSTOP) there, once, so that a test can interrupt or kill -9 it at an
 * exact moment without sleeping (the test sees the stop with waitpid). */
void vmb_test_stop_point(const char *point);

#endif
