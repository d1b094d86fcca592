package com.example.workload;

import org.junit.platform.runner.JUnitPlatform;
import org.junit.platform.suite.api.SelectPackages;
import org.junit.runner.RunWith;

/**
 * Gradle before 4.6 has no useJUnitPlatform(): its JUnit 4 executor starts the JUnit Platform
 * through this suite (and the vintage engine runs the JUnit 4 tests on it), so that the runtime's
 * per-test listener sees each test. komorium.gradle's komoriumTests runs it; `test` leaves it out.
 */
@RunWith(JUnitPlatform.class)
@SelectPackages("com.example.workload")
public class PlatformSuite {}
