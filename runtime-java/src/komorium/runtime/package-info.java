/**
 * The runtime of komorium-ts: what a program rewritten by the komorium-ts transform needs to
 * profile itself, in pure Java (Java 8, java.base only), after Komorium (Binder 2006).
 *
 * <ul>
 * <li>{@link komorium.runtime.TC} and {@link komorium.runtime.MID}:
 * the thread context and the method identifiers the instrumented code calls and pushes
 * (docs/runtime-contract.md).</li>
 * <li>{@link komorium.runtime.SamplingProfiler} and {@link komorium.runtime.AgentLifecycle}: the
 * API for writing a profiling agent.</li>
 * <li>{@link komorium.runtime.SamplingAgent} (the default) and
 * {@link komorium.runtime.ExactAgent}: the built-in agents, which write docs/profile-format.md.</li>
 * <li>{@link komorium.runtime.Config}: the system properties.</li>
 * </ul>
 */
package komorium.runtime;
