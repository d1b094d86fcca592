<?xml version="1.0" encoding="UTF-8"?>
<!--
  Benchmark input for Xalan (komorium-ts `npm run bench`): a report over shared-mime-info's
  /usr/share/mime/packages/freedesktop.org.xml (Debian package shared-mime-info). XSLT 1.0 only:
  Muenchian grouping, sorting, recursive templates over sub-class-of chains and a quadratic
  "related types" XPath, so that the transform runs for seconds in Xalan's interpretive processor.
-->
<xsl:stylesheet version="1.0"
    xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
    xmlns:m="http://www.freedesktop.org/standards/shared-mime-info">
  <xsl:output method="text" encoding="UTF-8"/>
  <xsl:key name="by-type" match="m:mime-type" use="@type"/>
  <xsl:key name="by-alias" match="m:mime-type" use="m:alias/@type"/>
  <xsl:key name="by-parent" match="m:mime-type" use="m:sub-class-of/@type"/>
  <xsl:key name="by-media" match="m:mime-type" use="substring-before(@type, '/')"/>
  <xsl:key name="by-lang" match="m:comment[@xml:lang]" use="@xml:lang"/>
  <xsl:key name="by-icon" match="m:mime-type" use="m:generic-icon/@name"/>

  <xsl:variable name="all" select="/m:mime-info/m:mime-type"/>

  <xsl:template match="/">
    <xsl:text>mime types: </xsl:text><xsl:value-of select="count($all)"/><xsl:text>&#10;</xsl:text>
    <xsl:text>globs: </xsl:text><xsl:value-of select="count($all/m:glob)"/><xsl:text>&#10;</xsl:text>
    <xsl:text>magic matches: </xsl:text><xsl:value-of select="count($all/m:magic//m:match)"/><xsl:text>&#10;&#10;</xsl:text>

    <xsl:text>== media types&#10;</xsl:text>
    <xsl:for-each select="$all[generate-id() = generate-id(key('by-media', substring-before(@type, '/'))[1])]">
      <xsl:sort select="count(key('by-media', substring-before(@type, '/')))" data-type="number" order="descending"/>
      <xsl:sort select="@type"/>
      <xsl:variable name="media" select="substring-before(@type, '/')"/>
      <xsl:value-of select="$media"/><xsl:text>: </xsl:text>
      <xsl:value-of select="count(key('by-media', $media))"/><xsl:text> types, </xsl:text>
      <xsl:value-of select="count(key('by-media', $media)/m:glob)"/><xsl:text> globs&#10;</xsl:text>
    </xsl:for-each>

    <xsl:text>&#10;== translations per language&#10;</xsl:text>
    <xsl:for-each select="$all/m:comment[@xml:lang][generate-id() = generate-id(key('by-lang', @xml:lang)[1])]">
      <xsl:sort select="count(key('by-lang', @xml:lang))" data-type="number" order="descending"/>
      <xsl:sort select="@xml:lang"/>
      <xsl:value-of select="@xml:lang"/><xsl:text> </xsl:text>
      <xsl:value-of select="count(key('by-lang', @xml:lang))"/><xsl:text>&#10;</xsl:text>
    </xsl:for-each>

    <xsl:text>&#10;== generic icons&#10;</xsl:text>
    <xsl:for-each select="$all/m:generic-icon[generate-id(..) = generate-id(key('by-icon', @name)[1])]">
      <xsl:sort select="@name"/>
      <xsl:value-of select="@name"/><xsl:text> </xsl:text>
      <xsl:value-of select="count(key('by-icon', @name))"/><xsl:text>&#10;</xsl:text>
    </xsl:for-each>

    <xsl:text>&#10;== types&#10;</xsl:text>
    <xsl:for-each select="$all">
      <xsl:sort select="@type"/>
      <xsl:apply-templates select="."/>
    </xsl:for-each>
  </xsl:template>

  <xsl:template match="m:mime-type">
    <xsl:variable name="en" select="normalize-space(m:comment[not(@xml:lang)])"/>
    <xsl:variable name="word" select="substring-before(concat(translate($en, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'), ' '), ' ')"/>
    <xsl:value-of select="@type"/><xsl:text>&#9;</xsl:text>
    <xsl:value-of select="$en"/><xsl:text>&#9;</xsl:text>
    <xsl:value-of select="count(m:comment[@xml:lang])"/><xsl:text>&#9;</xsl:text>
    <xsl:for-each select="m:glob">
      <xsl:sort select="@pattern"/>
      <xsl:if test="position() &gt; 1"><xsl:text>,</xsl:text></xsl:if>
      <xsl:value-of select="@pattern"/>
    </xsl:for-each>
    <xsl:text>&#9;</xsl:text>
    <xsl:call-template name="ancestry">
      <xsl:with-param name="types" select="m:sub-class-of/@type"/>
      <xsl:with-param name="depth" select="0"/>
    </xsl:call-template>
    <xsl:text>&#9;desc=</xsl:text>
    <xsl:variable name="marks">
      <xsl:call-template name="descendant-marks">
        <xsl:with-param name="type" select="@type"/>
        <xsl:with-param name="depth" select="0"/>
      </xsl:call-template>
    </xsl:variable>
    <xsl:value-of select="string-length($marks)"/>
    <xsl:text>&#9;related=</xsl:text>
    <xsl:value-of select="count($all[contains(translate(m:comment[not(@xml:lang)], 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'), $word)])"/>
    <xsl:text>&#9;same-words=</xsl:text>
    <xsl:value-of select="count($all[string-length(normalize-space(m:comment[not(@xml:lang)])) - string-length(translate(normalize-space(m:comment[not(@xml:lang)]), ' ', '')) = string-length($en) - string-length(translate($en, ' ', ''))])"/>
    <xsl:text>&#10;</xsl:text>
  </xsl:template>

  <!-- The sub-class-of chain, through aliases, breadth first; depth-bounded against cycles. -->
  <xsl:template name="ancestry">
    <xsl:param name="types"/>
    <xsl:param name="depth"/>
    <xsl:if test="$types and $depth &lt; 12">
      <xsl:for-each select="$types">
        <xsl:sort select="."/>
        <xsl:text>&lt;</xsl:text><xsl:value-of select="."/>
      </xsl:for-each>
      <xsl:variable name="defs" select="key('by-type', $types) | key('by-alias', $types)"/>
      <xsl:call-template name="ancestry">
        <xsl:with-param name="types" select="$defs/m:sub-class-of/@type"/>
        <xsl:with-param name="depth" select="$depth + 1"/>
      </xsl:call-template>
    </xsl:if>
  </xsl:template>

  <!-- One "x" per (transitive) subtype, counted with multiplicity; depth-bounded against cycles. -->
  <xsl:template name="descendant-marks">
    <xsl:param name="type"/>
    <xsl:param name="depth"/>
    <xsl:if test="$depth &lt; 12">
      <xsl:for-each select="key('by-parent', $type)">
        <xsl:text>x</xsl:text>
        <xsl:call-template name="descendant-marks">
          <xsl:with-param name="type" select="@type"/>
          <xsl:with-param name="depth" select="$depth + 1"/>
        </xsl:call-template>
      </xsl:for-each>
    </xsl:if>
  </xsl:template>
</xsl:stylesheet>
